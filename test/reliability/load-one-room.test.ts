import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { type FakeSlack, mentionEvent, postEvent } from "../fakes/slack/index.ts";
import { answerTo, type BotHandle, modelCallsFor, newChannel, readable, SIGNING_SECRET } from "../slack/harness.ts";
import { startWatchedSlackRig } from "./chat-rig.ts";
import type { PassThrough } from "./pass-through.ts";
import { type Rig, slackRoom } from "./rig.ts";
import { turn } from "./tally.ts";

/**
 * Many people at once in one channel: fifty mentions land together, the room
 * admits 20 waiting turns and answers 429 beyond that, the bot's client waits
 * those out, and every mention gets its own answer, with the history in order.
 * The bot reaches the Worker through a pass-through that records each answer's
 * status, so the test sees the 429s it says were waited out.
 */

let rig: Rig;
let slack: FakeSlack;
let bot: BotHandle;
let toWorker: PassThrough;

startedForTests(startWatchedSlackRig, (started) => ({ rig, slack, bot, toWorker } = started));

describe("load on one room", () => {
  it("50 concurrent mentions in one channel: each answered once in its own thread, history in pairs", async () => {
    const channel = newChannel();
    const room = slackRoom(slack.id.teamId, channel);
    const mentions = Array.from({ length: 50 }, (_, i) => {
      const marker = `crowd-${i}-${channel}`;
      // 100 ms a turn: fifty take seconds, so the mentions surely arrive while the queue is full.
      const payload = mentionEvent(slack, { channel, text: `SLOW:100 SAY: ${marker}`, user: `U0CROWD${i}` });
      return { marker, ts: String(payload.event.ts), payload, t: turn("one of 50 concurrent mentions") };
    });
    const acks = await Promise.all(mentions.map((m) => postEvent(bot.url, m.payload, { secret: SIGNING_SECRET })));
    expect(acks.every((a) => a.status === 200)).toBe(true);

    // The channel gets one new message a second (the bot's channel pace): fifty answers take about a minute.
    await slack.waitFor(() => mentions.every((m) => slack.ws.reactionsOn(channel, m.ts).includes("white_check_mark")), "every mention's ✅", 150_000);
    for (const m of mentions) {
      const replies = await answerTo(slack, { channel, ts: m.ts, threadTs: m.ts });
      m.t.answered(replies);
      expect(readable(replies[0])).toContain(m.marker);
      expect(slack.ws.reactionsOn(channel, m.ts)).toContain("white_check_mark");
      expect(modelCallsFor(rig.stack, m.marker)).toBe(1);
    }

    // The room refused some turns while 20 waited; each refused mention was asked again until it got in.
    const calls = toWorker.crossings.filter((c) => c.path === `/api/rooms/${room}/message`);
    expect(calls.filter((c) => c.status === 429).length).toBeGreaterThan(0);
    for (const m of mentions) {
      const mine = calls.filter((c) => c.body?.idempotencyKey === m.payload.event_id).map((c) => c.status);
      expect(mine.at(-1)).toBe(200);
      expect(mine.slice(0, -1).every((s) => s === 429)).toBe(true);
    }

    // The room keeps its last 50 messages: 25 whole turns, each question followed by its own answer.
    const { messages } = await rig.stack.client.history(room);
    expect(messages).toHaveLength(50);
    for (let i = 0; i < messages.length; i += 2) {
      const [q, a] = [messages[i], messages[i + 1]];
      expect(q.role).toBe("user");
      expect(a.role).toBe("agent");
      expect(a.text).toBe(q.text.replace(/^SLOW:100 SAY: /, ""));
      expect(a.ts).toBeGreaterThanOrEqual(q.ts);
    }
    expect(new Set(messages.map((x) => x.text)).size).toBe(50);
    // In admission order: questions by when the room took them, answers by when they were written.
    for (const role of ["user", "agent"]) {
      const stamps = messages.filter((x) => x.role === role).map((x) => x.ts);
      expect([...stamps].sort((x, y) => x - y)).toEqual(stamps);
    }
  }, 240_000);
});
