import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { type BotCall, startFakeWithChannel } from "./fake-setup.ts";
import type { FakeDiscord } from "../fakes/discord/index.ts";

/**
 * What live answers need from the fake Discord: every edit of a bot message
 * recorded with when it arrived and the buttons it shows, edits refused with 429
 * on request, and button clicks (MESSAGE_COMPONENT interactions) answered by
 * updating the clicked message.
 */

describe("the fake Discord's edits and buttons", () => {
  let fake: FakeDiscord;
  let channel: string;
  let api: BotCall;
  startedForTests(startFakeWithChannel, (s) => ({ fake, channel, api } = s));

  const stopRow = [{ type: 1, components: [{ type: 2, style: 4, label: "Stop", custom_id: "duet-stop" }] }];

  it("records each edit of a channel message with its time and buttons, and only the bot's own", async () => {
    const posted = await api(`/channels/${channel}/messages`, "POST", { content: "Working", components: stopRow });
    const id = posted.body.id as string;
    await api(`/channels/${channel}/messages/${id}`, "PATCH", { content: "Working on it" });
    await api(`/channels/${channel}/messages/${id}`, "PATCH", { content: "Done", components: [] });
    const mine = fake.edits.filter((e) => e.messageId === id);
    expect(mine.map((e) => [e.content, e.buttons])).toEqual([
      ["Working on it", ["duet-stop"]],
      ["Done", []],
    ]);
    expect(mine[1].at).toBeGreaterThanOrEqual(mine[0].at);
    const person = fake.message(channel, "mine");
    expect((await api(`/channels/${channel}/messages/${person.id}`, "PATCH", { content: "x" })).body).toMatchObject({ code: 50005 });
  });

  it("answers 429 with retry_after on edits when told to, and takes the retry", async () => {
    const posted = await api(`/channels/${channel}/messages`, "POST", { content: "v1" });
    fake.rateLimitNext(1, { route: "PATCH /channels", retryAfterSeconds: 0.3 });
    const limited = await api(`/channels/${channel}/messages/${posted.body.id}`, "PATCH", { content: "v2" });
    expect(limited).toMatchObject({ status: 429, body: { retry_after: 0.3 } });
    expect((await api(`/channels/${channel}/messages/${posted.body.id}`, "PATCH", { content: "v2" })).status).toBe(200);
    expect(fake.world.messages.get(posted.body.id)?.content).toBe("v2");
  });

  it("delivers a button click as a type 3 interaction and updates the clicked message on a type 7 answer", async () => {
    const posted = await api(`/channels/${channel}/messages`, "POST", { content: "Working", components: stopRow });
    const click = fake.click(posted.body, "duet-stop");
    expect((click as unknown as { payload: Record<string, unknown> }).payload).toMatchObject({ type: 3, data: { custom_id: "duet-stop", component_type: 2 }, message: { id: posted.body.id } });
    const update = await api(`/interactions/${click.id}/${click.token}/callback`, "POST", { type: 7, data: { content: "Stopped", components: [] } });
    expect(update.status).toBe(204);
    expect(fake.world.messages.get(posted.body.id)).toMatchObject({ content: "Stopped", components: [] });
    const command = fake.interaction(channel, { subcommand: "help" });
    expect((await api(`/interactions/${command.id}/${command.token}/callback`, "POST", { type: 7, data: { content: "x" } })).status).toBe(400);
  });
});
