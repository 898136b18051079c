import { startFakeDiscord, type FakeDiscord } from "../fakes/discord/index.ts";

/** The fake Discord alone, with one server and channel, for the tests of the fake itself; `api` calls its REST as the bot. */

export type BotCall = (path: string, method: string, json: unknown) => Promise<{ status: number; body: any }>;

export interface FakeWithChannel {
  fake: FakeDiscord;
  channel: string;
  api: BotCall;
  stop(): Promise<void>;
}

export async function startFakeWithChannel(): Promise<FakeWithChannel> {
  const fake = await startFakeDiscord();
  const channel = fake.addChannel(fake.addGuild(), "general");
  const api: BotCall = (path, method, json) =>
    fetch(`${fake.api}/v10${path}`, {
      method,
      headers: { authorization: `Bot ${fake.token}`, "content-type": "application/json" },
      body: JSON.stringify(json),
    }).then(async (r) => ({ status: r.status, body: r.status === 204 ? null : await r.json() }));
  return { fake, channel, api, stop: () => fake.close() };
}
