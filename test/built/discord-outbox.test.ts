import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeDiscord, type FakeDiscord } from "../fakes/discord/index.ts";
import type { Stack } from "../helpers/stack.ts";
import type { WorkerTap } from "../helpers/worker-tap.ts";
import { type Built, runBuilt } from "./harness.ts";
import { confirms, type OutboxRig, startOutboxRig } from "./outbox-rig.ts";

/**
 * The outbox with the built Discord bot: a bot killed (SIGKILL) while the
 * model is still answering, or after posting the answer but before the room
 * heard of it, leaves the answer in the room; the bot started again on the
 * same settings shows it once, in the message already posted for it.
 */

let rig: OutboxRig;
let built: Built;
let stack: Stack;
let fake: FakeDiscord;
let tap: WorkerTap;
let guildId: string;

beforeAll(async () => {
  ({ built, stack, tap } = rig = await startOutboxRig());
  fake = await startFakeDiscord({ heartbeatIntervalMs: 1_000 });
  guildId = fake.addGuild("outbox");
});
afterAll(async () => {
  await fake?.close();
  await rig?.close();
});

function startBot(extra: Record<string, string> = {}) {
  const bot = runBuilt(built, "discord", { DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.api, DUET_WORKER_URL: tap.url, DUET_API_TOKEN: stack.token, ...extra });
  return bot;
}

const botMessages = (channel: string) => fake.messagesIn(channel).filter((m) => m.author.id === fake.botUser.id);

describe("the outbox with the built Discord bot", () => {
  it("edits the live answer of a bot SIGKILLed mid-answer into the whole answer after the restart; the model asked and the command run once", async () => {
    const channel = fake.addChannel(guildId, "killed-mid-answer");
    const first = startBot();
    await first.waitForOutput("connected as Duet");
    const hold = `outbox-discord-${Date.now()}`;
    const marker = `kept-${Date.now()}`;
    fake.message(channel, `HOLD:${hold} CHUNK:10 SAY: Checking it now for you <run>echo ${marker}-output</run>`, { mention: true });
    // The live answer's first message is posted and the room has its id: the bot dies now, the model still holding the rest.
    await expect.poll(() => tap.calls.filter((c) => confirms(false, channel)(c) && c.status === 200).length, { timeout: 20_000 }).toBe(1);
    const live = botMessages(channel);
    expect(live).toHaveLength(1);
    first.child.kill("SIGKILL");
    await first.exited;
    await fetch(`${stack.model.url}/_release/${hold}`, { method: "POST" });
    await expect.poll(() => stack.executor!.calls.filter((c) => c.command === `echo ${marker}-output`).length, { timeout: 20_000 }).toBe(1);

    const second = startBot();
    try {
      await expect.poll(() => botMessages(channel).some((m) => m.content.includes(`${marker}-output`)), { timeout: 30_000 }).toBe(true);
      const shown = botMessages(channel);
      // One message: the live one, edited into the answer (its Stop button gone), not a second reply.
      expect(shown.map((m) => m.id)).toEqual([live[0].id]);
      expect(shown[0].content).toContain("Checking it now");
      expect(shown[0].components ?? []).toEqual([]);
      expect(stack.model.calls.filter((c) => JSON.stringify(c).includes(marker))).toHaveLength(1);
      expect(stack.executor!.calls.filter((c) => c.command === `echo ${marker}-output`)).toHaveLength(1);
    } catch (err) {
      console.log("BOT1", first.output(), "BOT2", second.output());
      throw err;
    } finally {
      expect(await second.stop()).toBe(0);
    }
  }, 120_000);

  it("a bot killed after posting its answer and before confirming it: the restarted bot's delivery finds the posted message by its nonce, no second copy", async () => {
    const channel = fake.addChannel(guildId, "killed-before-confirm");
    // Not streamed: the answer is posted whole, once, as a reply.
    const first = startBot({ DUET_STREAMING: "off" });
    await first.waitForOutput("connected as Duet");
    const marker = `posted-${Date.now()}`;
    // The confirm never reaches the Worker: the bot has posted the answer, and dies waiting.
    tap.hold(confirms(true, channel));
    fake.message(channel, `SAY: Here it is <run>echo ${marker}-output</run>`, { mention: true });
    await expect.poll(() => tap.calls.filter(confirms(true, channel)).length, { timeout: 20_000 }).toBe(1);
    expect(botMessages(channel)).toHaveLength(1);
    first.child.kill("SIGKILL");
    await first.exited;
    tap.hold(() => false);

    const posts = () => fake.calls.filter((c) => c.route === `POST /channels/:id/messages` && c.path.includes(channel));
    const second = startBot();
    try {
      // The delivery posted again with the same nonce, and Discord answered with the message already there.
      await expect.poll(() => posts().length, { timeout: 30_000 }).toBe(2);
      await expect.poll(() => tap.calls.filter((c) => confirms(true, channel)(c) && c.status === 200).length, { timeout: 20_000 }).toBeGreaterThan(0);
      const shown = botMessages(channel);
      expect(shown).toHaveLength(1);
      expect(shown[0].content).toContain(`${marker}-output`);
      expect(posts().every((c) => c.body?.enforce_nonce === true && c.body?.nonce === posts()[0].body?.nonce)).toBe(true);
      expect(stack.executor!.calls.filter((c) => c.command === `echo ${marker}-output`)).toHaveLength(1);
    } catch (err) {
      console.log("BOT1", first.output(), "BOT2", second.output());
      throw err;
    } finally {
      expect(await second.stop()).toBe(0);
    }
  }, 120_000);
});
