import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { interactionAnswer, startDiscordHarness, type DiscordHarness } from "../discord/harness.ts";
import { type FakeSlack, type SlackMessage, startFakeSlack } from "../fakes/slack/index.ts";
import { answerTo, type BotHandle, botReplies, callsIn, mention, modelCallsFor, newChannel, readable, startBot } from "../slack/harness.ts";
import { type Rig, slackRoom, startRig } from "./rig.ts";
import { turn } from "./tally.ts";

/**
 * The Worker goes away mid-turn while the bots post answers whole
 * (DUET_STREAMING=off). The room took the turn and finishes it when it is
 * back, and its outbox delivers the answer: the thread is told the answer is
 * coming, never to try again, and ends with one answer. A question the room
 * never got is still told to try again.
 */

const WHOLE = { DUET_STREAMING: "off" } as const;

interface WholeRig {
  rig: Rig;
  slack: FakeSlack;
  bot: BotHandle;
  discord: DiscordHarness;
  stop(): Promise<void>;
}

async function startWholeRig(): Promise<WholeRig> {
  const rig = await startRig();
  const slack = await startFakeSlack();
  const bot = await startBot(slack, rig.stack, WHOLE);
  const discord = await startDiscordHarness(rig.stack, { env: () => WHOLE });
  return {
    rig,
    slack,
    bot,
    discord,
    stop: async () => {
      await discord.stop();
      await bot.stop();
      await slack.close();
      await rig.stop();
    },
  };
}

let rig: Rig;
let slack: FakeSlack;
let bot: BotHandle;
let discord: DiscordHarness;

startedForTests(startWholeRig, (started) => ({ rig, slack, bot, discord } = started));

const COMING = /still coming/;
const TRY_AGAIN = /try again/i;

/** Everything the bot sent to `channel`'s messages, as text. */
const sentTo = (channel: string): string[] => ["chat.postMessage", "chat.update", "chat.postEphemeral"].flatMap((method) => callsIn(slack, method, channel)).map((c) => JSON.stringify(c.args));

describe("the Worker goes away mid-turn while answers are posted whole", () => {
  it("on Slack, down past the bot's tries: the thread says the answer is coming, never to try again, and the note becomes the one answer", async () => {
    const channel = newChannel();
    const marker = `whole-coming-${channel}`;
    const t = turn("Slack mention across a long Worker outage (whole answers)");
    const m = await mention(slack, bot, { channel, text: `SLOW:4000 SAY: ${marker}` });
    // The model was asked: the room took the turn.
    await expect.poll(() => modelCallsFor(rig.stack, marker), { timeout: 20_000, interval: 20 }).toBe(1);
    await rig.stack.stopWorker();
    let said: SlackMessage;
    try {
      // The bot's tries run out while the Worker is down; the thread gets its word on the lost answer.
      said = await slack.waitFor(() => botReplies(slack, channel, m.threadTs).find((r) => COMING.test(readable(r)) || TRY_AGAIN.test(readable(r))), "the thread's word on the lost answer", 60_000);
      expect(readable(said)).toMatch(COMING);
    } finally {
      await rig.stack.restartWorker();
    }

    // The room resumes the turn once the Worker is back, and its outbox puts the answer where the note is.
    await slack.waitFor(() => slack.ws.reactionsOn(channel, m.ts).includes("white_check_mark"), "the answer's ✅", 90_000);
    const replies = await answerTo(slack, m);
    t.answered(replies);
    expect(replies).toHaveLength(1);
    expect(replies[0].ts).toBe(said.ts);
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
    const edits = () => discord.fake.calls.filter((c) => c.path.includes(rec.token) && c.method === "PATCH").map((c) => String(c.body?.content ?? ""));
    await expect.poll(() => modelCallsFor(rig.stack, marker), { timeout: 20_000, interval: 20 }).toBe(1);
    await rig.stack.stopWorker();
    try {
      await expect.poll(() => edits().find((e) => COMING.test(e) || TRY_AGAIN.test(e)), { timeout: 60_000, interval: 50 }).toBeDefined();
      expect(edits().find((e) => COMING.test(e) || TRY_AGAIN.test(e))).toMatch(COMING);
    } finally {
      await rig.stack.restartWorker();
    }

    // The room's delivery edits the same reply into the answer.
    await expect.poll(() => rec.original?.content ?? "", { timeout: 90_000, interval: 100 }).toContain(marker);
    t.answered([rec.original]);
    expect(rec.original?.content).not.toMatch(COMING);
    expect(rec.followups).toEqual([]);
    expect(edits().filter((e) => TRY_AGAIN.test(e))).toEqual([]);
    expect(discord.fake.calls.filter((c) => c.method === "POST" && c.path.startsWith(`/channels/${ch}/messages`))).toEqual([]);
  });

  it("on Slack, restarted within the bot's tries: its retry carries the one answer, and the thread is told nothing else", async () => {
    const channel = newChannel();
    const marker = `whole-restart-${channel}`;
    const t = turn("Slack mention across a Worker restart (whole answers)");
    const m = await mention(slack, bot, { channel, text: `SLOW:3000 SAY: ${marker}` });
    await expect.poll(() => modelCallsFor(rig.stack, marker), { timeout: 20_000, interval: 20 }).toBe(1);
    await rig.stack.restartWorker();

    const replies = await answerTo(slack, m);
    t.answered(replies);
    expect(replies).toHaveLength(1);
    expect(readable(replies[0])).toContain(marker);
    expect(sentTo(channel).filter((s) => TRY_AGAIN.test(s) || COMING.test(s))).toEqual([]);
  });

  it("on Slack, down before the question reaches it: the room never took the turn, so the thread is told to try again", async () => {
    const channel = newChannel();
    const marker = `whole-never-${channel}`;
    await rig.stack.stopWorker();
    try {
      const m = await mention(slack, bot, { channel, text: `SAY: ${marker}` });
      const [reply, ...more] = await answerTo(slack, m);
      expect(more).toEqual([]);
      expect(readable(reply)).toMatch(/can't be reached right now\. Please try again/);
      expect(readable(reply)).not.toMatch(COMING);
    } finally {
      await rig.stack.restartWorker();
    }
  });
});
