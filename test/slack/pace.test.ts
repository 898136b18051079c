import { describe, expect, it } from "vitest";
import type { FakeSlack } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, botReplies, callsIn, mention, newChannel, newMessagesIn, readable, startSlackSetup } from "./harness.ts";

/**
 * One busy channel: answers to a burst of mentions reach Slack one new message
 * a second (its limit per channel; threads count toward their channel), read
 * from the times the fake recorded each call. Another channel is not held
 * behind them, and an answer that waited past the room's delivery grace is
 * still posted once.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;

// The room offers an unconfirmed answer to the outbox after 2 s (15 s by default), so answers that wait their turn outlast it.
startedForTests(() => startSlackSetup([{}], { vars: { DUET_DELIVERY_GRACE_MS: "2000" } }), (s) => ({ stack, slack, bots: [bot] } = s));

const newMessages = (channel: string) => newMessagesIn(slack, channel);

describe("a burst of mentions in one Slack channel", () => {
  it("answers each once in its own thread, its new messages at least a second apart, while another channel is answered at once", async () => {
    const busy = newChannel();
    const quiet = newChannel();
    // The first answer's message is held at Slack until every turn is answered in the room: the others then
    // surely end while they wait their turn behind it.
    const held = ["chat.startStream", "chat.postMessage"].map((m) => slack.hold(m));
    const asked = [];
    for (let i = 0; i < 5; i++) asked.push(await mention(slack, bot, { channel: busy, text: `SAY: busy-answer-${i}`, user: `U0B${i}` }));
    await Promise.race(held.map((h) => h.arrived));
    const room = `slack-${slack.id.teamId}-${busy}`;
    await expect.poll(async () => (await stack.client.history(room)).messages.length, { timeout: 30_000 }).toBe(10);
    const other = await mention(slack, bot, { channel: quiet, text: "SAY: quiet-answer" });
    for (const h of held) h.release();

    for (const [i, m] of asked.entries()) {
      const replies = await answerTo(slack, m);
      expect(replies).toHaveLength(1);
      expect(readable(replies[0])).toContain(`busy-answer-${i}`);
    }
    const created = newMessages(busy);
    expect(created).toHaveLength(5);
    for (const [i, c] of created.slice(1).entries()) expect(c.at - created[i].at).toBeGreaterThanOrEqual(950);
    // The answers that ended while they waited their turn went out whole: one message each, never edited.
    const waited = created.slice(1).map((c) => botReplies(slack, busy, String(c.args.thread_ts))[0]);
    expect(waited.map((r) => r.via)).toEqual(waited.map(() => "chat.postMessage"));
    expect(callsIn(slack, "chat.update", busy).filter((c) => waited.some((r) => r.ts === c.args.ts))).toEqual([]);

    // Barrier: the other channel's answer reached Slack before the busy channel's last one.
    expect(readable((await answerTo(slack, other))[0])).toContain("quiet-answer");
    const [quietPost] = newMessages(quiet);
    expect(quietPost.at).toBeLessThan(created[4].at);

    // The last answers waited past the delivery grace, so the outbox offered them to the bot too. Barrier: a later
    // answer in the same channel takes its turn after any second copy already waiting; none was posted.
    const later = await mention(slack, bot, { channel: busy, text: "SAY: later-answer" });
    expect(readable((await answerTo(slack, later))[0])).toContain("later-answer");
    expect(asked.map((m) => botReplies(slack, busy, m.threadTs).length)).toEqual([1, 1, 1, 1, 1]);
  }, 60_000);
});
