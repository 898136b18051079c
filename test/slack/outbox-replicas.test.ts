import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { mentionEvent } from "../fakes/slack/index.ts";
import { answerTo, botReplies, callsIn, newChannel, readable, type SlackSetup, startSlackSetup } from "./harness.ts";

/**
 * Two replicas of the Slack bot reading the same delivery feed: answers left
 * in their rooms (as by a bot that died) are each posted once, by one of them.
 */

describe("the outbox with two Slack bot replicas", () => {
  let s: SlackSetup;
  // Both replicas read the feed from start-up; answers unconfirmed for 300 ms are offered (15 s in production).
  startedForTests(() => startSlackSetup([{}, {}], { vars: { DUET_DELIVERY_GRACE_MS: "300" } }), (setup) => (s = setup));

  it("delivers each waiting answer once, whichever replica claims it", async () => {
    const waiting = Array.from({ length: 6 }, (_, i) => {
      const channel = newChannel("CREPL");
      // The person's message the answer belongs to (never sent to a bot: its bot died before it could answer).
      const threadTs = String(mentionEvent(s.slack, { channel, text: "SAY: something" }).event.ts);
      return { channel, threadTs, marker: `replica-answer-${i}-${Date.now()}` };
    });
    // Turns whose bot never confirmed: each answer stays in its room, announced in the Slack feed.
    await Promise.all(
      waiting.map(({ channel, threadTs, marker }) =>
        s.stack.client.message(`slack-T0DUET-${channel}`, { text: `SAY: ${marker}`, idempotencyKey: `Ev-${marker}`, deliver: { platform: "slack", place: { channel, threadTs, ts: threadTs } } }),
      ),
    );
    for (const { channel, threadTs, marker } of waiting) {
      const [answer] = await answerTo(s.slack, { channel, ts: threadTs, threadTs });
      expect(readable(answer)).toContain(marker);
    }
    // Barrier: every answer is confirmed, so no read of the feed can offer one again (a lease that lapsed would).
    for (const { channel, threadTs, marker } of waiting) {
      const again = await s.stack.client.confirmDelivery(`slack-T0DUET-${channel}`, { key: `Ev-${marker}`, messageId: botReplies(s.slack, channel, threadTs)[0].ts });
      expect(again).toEqual({ confirmed: true });
    }
    for (const { channel, threadTs } of waiting) {
      expect(botReplies(s.slack, channel, threadTs)).toHaveLength(1);
      expect(callsIn(s.slack, "chat.postMessage", channel)).toHaveLength(1);
    }
  });
});
