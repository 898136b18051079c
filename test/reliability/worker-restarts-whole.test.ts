import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { DiscordHarness } from "../discord/harness.ts";
import type { FakeSlack } from "../fakes/slack/index.ts";
import { answerTo, type BotHandle, callsIn, mention, modelCallsFor, newChannel, readable } from "../slack/harness.ts";
import { startChatRig } from "./chat-rig.ts";
import { COMING, DELIVERY_GRACE_MS, discordComingNote, discordDeliveredInReply, slackComingNote, slackDeliveredAfterOutage, TRY_AGAIN } from "./lost-answer.ts";
import { type Rig, slackRoom } from "./rig.ts";
import { turn } from "./tally.ts";

/**
 * The Worker goes away mid-turn while the bots post answers whole
 * (DUET_STREAMING=off). The room took the turn and finishes it when it is
 * back, and its outbox delivers the answer: the thread is told the answer is
 * coming, never to try again, and ends with one answer. A question the room
 * never got is still told to try again.
 */

let rig: Rig;
let slack: FakeSlack;
let bot: BotHandle;
let discord: DiscordHarness;

startedForTests(() => startChatRig({ DUET_DELIVERY_GRACE_MS: DELIVERY_GRACE_MS }, { DUET_STREAMING: "off" }), (started) => ({ rig, slack, bot, discord } = started));

/** Everything the bot sent to `channel`'s messages, as text. */
const sentTo = (channel: string): string[] => ["chat.postMessage", "chat.update", "chat.postEphemeral"].flatMap((method) => callsIn(slack, method, channel)).map((c) => JSON.stringify(c.args));

/** The Worker stopped while the model thinks on the question holding `marker`: the room had taken the turn. */
async function stopWorkerMidTurn(marker: string): Promise<void> {
  await expect.poll(() => modelCallsFor(rig.stack, marker), { timeout: 20_000, interval: 20 }).toBe(1);
  await rig.stack.stopWorker();
}

/** `check` while the Worker is down; it is back afterwards whatever `check` found, for the next test. */
async function whileDown(check: () => Promise<unknown>): Promise<void> {
  try {
    await check();
  } finally {
    await rig.stack.restartWorker();
  }
}

describe("the Worker goes away mid-turn while answers are posted whole", () => {
  it("on Slack, down past the bot's tries: the thread says the answer is coming, never to try again, and the note becomes the one answer", async () => {
    const channel = newChannel();
    const marker = `whole-coming-${channel}`;
    const t = turn("Slack mention across a long Worker outage (whole answers)");
    const m = await mention(slack, bot, { channel, text: `SLOW:4000 SAY: ${marker}` });
    await stopWorkerMidTurn(marker);
    let noteTs = "";
    // The bot's tries run out while the Worker is down.
    await whileDown(async () => (noteTs = (await slackComingNote(slack, channel, m.threadTs)).ts));

    const replies = await slackDeliveredAfterOutage(slack, m);
    t.answered(replies);
    expect(replies).toHaveLength(1);
    expect(replies[0].ts).toBe(noteTs);
    expect(readable(replies[0])).toContain(marker);
    expect(readable(replies[0])).not.toMatch(COMING);
    expect(sentTo(channel).filter((s) => TRY_AGAIN.test(s))).toEqual([]);
    const { messages } = await rig.stack.client.history(slackRoom(slack.id.teamId, channel));
    expect(messages.map((x) => x.role)).toEqual(["user", "agent"]);
  });

  it("on Discord, a /duet ask down past the bot's tries: the deferred reply says the answer is coming, never to try again, and becomes the answer", async () => {
    const ch = discord.fake.addChannel(discord.guildId, "whole-coming");
    const marker = `discord-whole-coming-${ch}`;
    const t = turn("Discord /duet ask across a long Worker outage (whole answers)");
    const rec = discord.fake.interaction(ch, { subcommand: "ask", options: { prompt: `SLOW:4000 SAY: ${marker}` } });
    await stopWorkerMidTurn(marker);
    await whileDown(() => discordComingNote(discord, rec));

    await discordDeliveredInReply(discord, rec, ch, marker, t);
  });

  it("on Slack, restarted within the bot's tries: its retry carries the one answer, and the thread is told nothing else", async () => {
    const channel = newChannel();
    const marker = `whole-restart-${channel}`;
    const t = turn("Slack mention across a Worker restart (whole answers)");
    const m = await mention(slack, bot, { channel, text: `SLOW:3000 SAY: ${marker}` });
    await stopWorkerMidTurn(marker);
    await rig.stack.restartWorker();

    const replies = await answerTo(slack, m);
    t.answered(replies);
    expect(replies).toHaveLength(1);
    expect(readable(replies[0])).toContain(marker);
    expect(sentTo(channel).filter((s) => TRY_AGAIN.test(s) || COMING.test(s))).toEqual([]);
  });

  it("on Slack, down before the question reaches it: the room never took the turn, so the thread is told to try again", async () => {
    const channel = newChannel();
    await rig.stack.stopWorker();
    await whileDown(async () => {
      const m = await mention(slack, bot, { channel, text: `SAY: whole-never-${channel}` });
      const [reply, ...more] = await answerTo(slack, m);
      expect(more).toEqual([]);
      expect(readable(reply)).toMatch(/can't be reached right now\. Please try again/);
      expect(readable(reply)).not.toMatch(COMING);
    });
  });
});
