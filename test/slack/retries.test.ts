import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { type FakeSlack, mentionEvent, postEvent } from "../fakes/slack/index.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, botReplies, modelCallsFor, newChannel, readable, repeatWatcher, SIGNING_SECRET, startBot, startSlackSetup } from "./harness.ts";

/**
 * Slack delivers an event again when it thinks the ack was lost: at once, after
 * a minute, after five. Retries reach this process, a restarted one, or another
 * replica; whichever it is, people see one answer and the model runs once.
 */

let stack: Stack;
let slack: FakeSlack;

startedForTests(() => startSlackSetup([]), (s) => ({ stack, slack } = s));

/** The bots log each delivery they skip as a repeat; a test waits for that line. */
const watch = repeatWatcher();

/** Resolves once `times` deliveries of the event `eventId` were skipped as repeats by the bots started with `watch`. */
async function repeatSkipped(eventId: string, times: number) {
  await expect.poll(() => watch.skipped.filter((id) => id === eventId).length, { timeout: 20_000, interval: 20 }).toBeGreaterThanOrEqual(times);
}

describe("repeated deliveries", () => {
  it("the same event four times (retries, then again after a restart) gives one model call and one reply", async () => {
    const channel = newChannel();
    const payload = mentionEvent(slack, { channel, text: "SAY: once-only <run>echo ran-once >> ran-once-marker.txt; echo done</run>" });
    const ts = String(payload.event.ts);
    let bot: BotHandle = await startBot(slack, stack, {}, { logger: watch.logger });
    try {
      const deliveries = await Promise.all([
        postEvent(bot.url, payload, { secret: SIGNING_SECRET }),
        postEvent(bot.url, payload, { secret: SIGNING_SECRET, retryNum: 1, retryReason: "http_timeout" }),
      ]);
      expect(deliveries.map((d) => d.status)).toEqual([200, 200]);
      const replies = await answerTo(slack, { channel, ts, threadTs: ts });
      expect(replies).toHaveLength(1);
      const again = await postEvent(bot.url, payload, { secret: SIGNING_SECRET, retryNum: 2, retryReason: "http_timeout" });
      expect(again.status).toBe(200);

      // A restart forgets everything in memory; the fourth delivery reaches the new process.
      await bot.stop();
      bot = await startBot(slack, stack, {}, { logger: watch.logger });
      const afterRestart = await postEvent(bot.url, payload, { secret: SIGNING_SECRET, retryNum: 3, retryReason: "http_timeout" });
      expect(afterRestart.status).toBe(200);
      // The second, third and fourth deliveries: the last one by the restarted process, which only the Worker's claim can tell.
      await repeatSkipped(String(payload.event_id), 3);

      // A later mention in the same channel is answered, so the repeats have had their turn.
      const later = mentionEvent(slack, { channel, text: "SAY: later-mention" });
      await postEvent(bot.url, later, { secret: SIGNING_SECRET });
      await answerTo(slack, { channel, ts: String(later.event.ts), threadTs: String(later.event.ts) });

      expect(modelCallsFor(stack, "once-only")).toBe(1);
      const thread = botReplies(slack, channel, ts);
      expect(thread).toHaveLength(1);
      expect(readable(thread[0])).toContain("ran-once");
      expect(stack.executor!.calls.filter((c) => c.command.includes("ran-once-marker.txt"))).toHaveLength(1);
    } finally {
      await bot.stop();
    }
  });

  it("a second replica receiving the same event does not answer it again", async () => {
    const channel = newChannel();
    const [a, b] = [await startBot(slack, stack, {}, { logger: watch.logger }), await startBot(slack, stack, {}, { logger: watch.logger })];
    try {
      const payload = mentionEvent(slack, { channel, text: "SAY: two-replicas" });
      const ts = String(payload.event.ts);
      await Promise.all([postEvent(a.url, payload, { secret: SIGNING_SECRET }), postEvent(b.url, payload, { secret: SIGNING_SECRET, retryNum: 1 })]);
      await answerTo(slack, { channel, ts, threadTs: ts });
      await repeatSkipped(String(payload.event_id), 1);
      const later = mentionEvent(slack, { channel, text: "SAY: replica-later" });
      await postEvent(b.url, later, { secret: SIGNING_SECRET });
      await answerTo(slack, { channel, ts: String(later.event.ts), threadTs: String(later.event.ts) });
      expect(modelCallsFor(stack, "two-replicas")).toBe(1);
      expect(botReplies(slack, channel, ts)).toHaveLength(1);
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});
