import { queuedNote } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { releaseHeld } from "../helpers/model-control.ts";
import { type FakeSlack, mentionEvent, postEvent, startFakeSlack } from "../fakes/slack/index.ts";
import { answerTo, type BotHandle, modelCallsFor, newChannel, readable, SIGNING_SECRET, startBot } from "../slack/harness.ts";
import { type Rig, slackRoom, startRig } from "./rig.ts";
import { turn } from "./tally.ts";

/**
 * Many people at once in one channel: fifty mentions land within a second,
 * one after another, while the first is still being answered. The room takes
 * every one into its waiting line (ROOM_QUEUE_MAX holds a busy channel), so
 * each person is told their place at once, in the order they asked, nobody is
 * told to try again, and the answers come in that order. The bot reaches the
 * Worker directly: places are told through the turn's live stream.
 */

let rig: Rig;
let slack: FakeSlack;
let bot: BotHandle;

startedForTests(
  async () => {
    // The first answer is held while fifty asks join the line: longer than the stack's short model deadline.
    const r = await startRig({ MODEL_TIMEOUT_MS: "60000" });
    const s = await startFakeSlack();
    // New messages in the channel 100 ms apart instead of Slack's one a second: what is tested is the order and
    // that each is answered once, not the pace (test/slack/pace.test.ts keeps Slack's).
    const b = await startBot(s, r.stack, {}, { channelIntervalMs: 100 });
    return { r, s, b, stop: async () => (await b.stop(), await s.close(), await r.stop()) };
  },
  ({ r, s, b }) => ((rig = r), (slack = s), (bot = b)),
);

const QUEUE_NOTE = /questions? (is|are) ahead of yours/;

describe("load on one room", () => {
  it("50 mentions within a second in one channel: each told its place while the first is answered, all answered once, in the order asked", async () => {
    const channel = newChannel();
    const room = slackRoom(slack.id.teamId, channel);
    const hold = `crowd-first-${channel}`;
    // A busy channel's room is awake: its first question, answered before the crowd comes.
    const warm = mentionEvent(slack, { channel, text: `SAY: crowd-warm-${channel}`, user: "U0CROWDW" });
    await postEvent(bot.url, warm, { secret: SIGNING_SECRET });
    await slack.waitFor(() => slack.ws.reactionsOn(channel, String(warm.event.ts)).includes("white_check_mark"), "the first question's ✅");
    const mentions = Array.from({ length: 50 }, (_, i) => {
      const marker = `crowd-${i}-${channel}`;
      // The first answer is held until everyone behind it was told their place.
      const payload = mentionEvent(slack, { channel, text: `${i === 0 ? `HOLD:${hold} ` : ""}SAY: ${marker}`, user: `U0CROWD${i}` });
      return { marker, user: `U0CROWD${i}`, ts: String(payload.event.ts), payload, t: turn("one of 50 mentions in one channel") };
    });
    // Asked one after another, as a busy channel delivers them: each event's ack before the next.
    for (const m of mentions) expect((await postEvent(bot.url, m.payload, { secret: SIGNING_SECRET })).status).toBe(200);

    // While the first answer is held, each of the other 49 is told its place: the ones asked before it are ahead.
    const noteTo = (user: string) => slack.ws.ephemeral.find((e) => e.channel === channel && e.user === user && QUEUE_NOTE.test(e.text));
    await slack.waitFor(() => mentions.slice(1).every((m) => noteTo(m.user)), "every waiting asker's place", 60_000);
    mentions.slice(1).forEach((m, i) => expect(noteTo(m.user)).toMatchObject({ thread_ts: m.ts, text: queuedNote(i + 1) }));
    await releaseHeld(rig.stack.model, hold);

    // The channel gets one new message per the bot's channel pace (100 ms here): fifty answers take about five seconds.
    await slack.waitFor(() => mentions.every((m) => slack.ws.reactionsOn(channel, m.ts).includes("white_check_mark")), "every mention's ✅", 150_000);
    const firsts: string[] = [];
    for (const m of mentions) {
      const replies = await answerTo(slack, { channel, ts: m.ts, threadTs: m.ts });
      m.t.answered(replies);
      expect(replies).toHaveLength(1);
      expect(readable(replies[0])).toContain(m.marker);
      expect(readable(replies[0])).not.toMatch(/try again/i);
      expect(modelCallsFor(rig.stack, m.marker)).toBe(1);
      firsts.push(replies[0].ts);
    }
    // Answered in the order asked: each answer's message came after the one asked before it.
    expect([...firsts].sort((x, y) => Number(x) - Number(y))).toEqual(firsts);

    // The room keeps its last 50 messages: the last 25 turns, in the order asked, each question followed by its own answer.
    const { messages } = await rig.stack.client.history(room);
    expect(messages.map((x) => x.text)).toEqual(mentions.slice(25).flatMap((m) => [`SAY: ${m.marker}`, m.marker]));
    expect(messages.map((x) => x.role)).toEqual(mentions.slice(25).flatMap(() => ["user", "agent"]));
  }, 240_000);
});
