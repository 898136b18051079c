import { describe, expect, it, onTestFinished } from "vitest";
import { type FakeSlack, mentionEvent, postEvent, postSigned } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { startWorkerTap } from "../helpers/worker-tap.ts";
import { deliver, type Delivery, deliverHoldingThisThread } from "./ack-slack-process.ts";
import { answerTo, type BotHandle, botReplies, modelCallsFor, newChannel, readable, SIGNING_SECRET, startBot, startSlackSetup } from "./harness.ts";

/**
 * In HTTP mode a thread of its own owns SLACK_PORT and acknowledges Slack's
 * events, so an ack never waits behind the answers the bot's main thread is
 * rendering. What Slack sees is measured from a process of its own
 * (`ack-slack-process.ts`), with its rule: no 200 within 3 s is a failed
 * delivery, sent again.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;

startedForTests(() => startSlackSetup([{}]), (s) => ({ stack, slack, bots: [bot] } = s));

/** `count` mentions in new channels, each asking for an answer with its own marker. */
function mentions(count: number, text: (marker: string) => string, url: string, spacingMs = 0) {
  const run = Date.now().toString(36);
  return Array.from({ length: count }, (_, i) => {
    const channel = newChannel();
    const marker = `ack-${run}-${i}-end`;
    const payload = mentionEvent(slack, { channel, text: text(marker) });
    const ts = String(payload.event.ts);
    const delivery: Delivery = { url, body: JSON.stringify(payload), secret: SIGNING_SECRET, atMs: i * spacingMs };
    return { channel, marker, ts, delivery };
  });
}

/** Each mention has exactly one answer in its thread, with its marker, from one model call. */
async function answeredOnce(sent: { channel: string; marker: string; ts: string }[]) {
  for (const m of sent) {
    const replies = await answerTo(slack, { channel: m.channel, ts: m.ts, threadTs: m.ts });
    expect(replies.map(readable), m.marker).toHaveLength(1);
    expect(readable(replies[0])).toContain(m.marker);
    expect(modelCallsFor(stack, m.marker), m.marker).toBe(1);
  }
}

describe("the Slack ack front", () => {
  it("acks every event while the bot's main thread runs no JavaScript at all, and each is answered once afterwards", async () => {
    const sent = mentions(10, (marker) => `SAY: answered ${marker}`, bot.url);
    // The bot runs in this process: while it waits for Slack's process synchronously, the bot's
    // main thread is held, so every 200 Slack gets came from the front alone.
    const outcomes = deliverHoldingThisThread(sent.map((m) => m.delivery));
    expect(outcomes).toEqual(sent.map((_, index) => ({ index, first: 200, retries: 0, acked: true, text: "" })));
    await answeredOnce(sent);
  });

  it("acks 40 mentions whose answers stream at once on their first delivery, and answers each once", async () => {
    const text = (marker: string) => `CHUNK:4 SAY: Let me check that for you; this takes a few lines of text to write out in full. <run>echo ${marker}</run> That is the output.`;
    // On 2 cores this load keeps acks well inside Slack's 3 s even from the main thread (the bench
    // measures how far inside); the test above is the one that fails when an ack waits for it.
    const sent = mentions(40, text, bot.url, 25);
    const outcomes = await deliver(sent.map((m) => m.delivery));
    // No delivery failed by Slack's rule, so Slack retried none.
    expect(outcomes).toEqual(sent.map((_, index) => ({ index, first: 200, retries: 0, acked: true, text: "" })));
    await answeredOnce(sent);
  }, 120_000);

  it("refuses a forged event with 401 itself: nothing of it reaches the Worker", async () => {
    const tap = await startWorkerTap(stack.workerUrl);
    onTestFinished(() => tap.close());
    const tapped = await startBot(slack, { workerUrl: tap.url, token: stack.token });
    onTestFinished(() => tapped.stop());
    const channel = newChannel();
    const forged = mentionEvent(slack, { channel, text: "SAY: forged-marker" });
    expect((await postEvent(tapped.url, forged, { secret: "not-the-signing-secret" })).status).toBe(401);

    // A signed mention in the same channel after it is answered: the forged one had its chance.
    const later = mentionEvent(slack, { channel, text: "SAY: signed-after-forged" });
    expect((await postEvent(tapped.url, later, { secret: SIGNING_SECRET })).status).toBe(200);
    const ts = String(later.event.ts);
    expect(readable((await answerTo(slack, { channel, ts, threadTs: ts }))[0])).toContain("signed-after-forged");

    expect(tap.calls.filter((c) => JSON.stringify(c.body ?? "").includes(forged.event_id) || JSON.stringify(c.body ?? "").includes("forged-marker"))).toEqual([]);
    expect(modelCallsFor(stack, "forged-marker")).toBe(0);
    expect(slack.ws.reactionsOn(channel, String(forged.event.ts))).toEqual([]);
  });

  it("answers as bolt would what it does not hand over: a body past 4 MiB gets 413, Slack's unsigned ssl_check 200", async () => {
    const huge = JSON.stringify({ type: "event_callback", padding: "x".repeat(4 * 1024 * 1024) });
    expect((await postSigned(bot.url, huge, "application/json", { secret: SIGNING_SECRET })).status).toBe(413);
    const check = await fetch(bot.url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "ssl_check=1&token=legacy" });
    expect(check.status).toBe(200);
  });

  it("stops in the middle of a stream of events: each one Slack got a 200 for is answered by the time the bot has stopped, the rest are refused", async () => {
    const stopping = await startBot(slack, stack);
    // Spread over five seconds, so the stop reaches the front while some are still to come, even on a loaded machine.
    const sent = mentions(20, (marker) => `SAY: around the stop ${marker}`, stopping.url, 250);
    let firstAck!: () => void;
    const acking = new Promise<void>((resolve) => (firstAck = resolve));
    const delivered = deliver(
      sent.map((m) => m.delivery),
      (outcome) => outcome.acked && firstAck(),
    );
    // The stop begins once Slack has its first 200, with the rest still to come.
    await acking;
    await stopping.stop();
    // Read the moment the stop is over: it waited for what the front had acknowledged.
    const answered = sent.map((m) => ({ reactions: slack.ws.reactionsOn(m.channel, m.ts), replies: botReplies(slack, m.channel, m.ts).map(readable) }));
    const outcomes = await delivered;

    const acked = sent.filter((_, i) => outcomes[i].acked);
    const refused = sent.filter((_, i) => !outcomes[i].acked);
    expect(acked.length).toBeGreaterThan(0);
    // Some were refused: the stop came in the middle. Slack delivers those again, to a replica that is up.
    expect(refused.length).toBeGreaterThan(0);
    for (const m of acked) {
      const seen = answered[sent.indexOf(m)];
      expect(seen.reactions, m.marker).toContain("white_check_mark");
      expect(seen.replies, m.marker).toEqual([expect.stringContaining(m.marker)]);
    }
  });
});
