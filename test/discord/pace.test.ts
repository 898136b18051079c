import { describe, expect, it } from "vitest";
import type { FakeMessage } from "../fakes/discord/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { type DiscordHarness, mentionAnswer, startDiscordSetup } from "./harness.ts";

/**
 * One busy channel on Discord: answers to a burst of mentions reach Discord one
 * new message a second (within its five per five seconds per channel), read
 * from the times the fake recorded each call. Another channel is not held
 * behind them, and an answer that waited past the room's delivery grace is
 * still posted once.
 */

let h: DiscordHarness;

// The room offers an unconfirmed answer to the outbox after 2 s (15 s by default), so answers that wait their turn outlast it.
startedForTests(() => startDiscordSetup({ stack: { vars: { DUET_DELIVERY_GRACE_MS: "2000" } } }), (s) => ({ h } = s));

/** The calls that posted a new message in `channel` (Discord accepted them), in the order they arrived. */
const newMessages = (channel: string) => h.fake.calls.filter((c) => c.method === "POST" && c.path === `/channels/${channel}/messages` && c.status === 200).sort((a, b) => a.at - b.at);
/** The bot's replies to `msg`, as people see them in its channel. */
const repliesTo = (msg: FakeMessage) => h.fake.messagesIn(msg.channel_id).filter((m) => m.author.id === h.fake.botUser.id && (m.message_reference as { message_id?: string } | undefined)?.message_id === msg.id);

describe("a burst of mentions in one Discord channel", () => {
  it("answers each once as a reply, its new messages at least a second apart, while another channel is answered at once", async () => {
    const busy = h.fake.addChannel(h.guildId, "busy");
    const quiet = h.fake.addChannel(h.guildId, "quiet");
    // The busy channel's first new message waits out a 6 s 429 inside its turn (room to spare on a loaded machine): the other
    // answers end while they wait behind it. Only that channel's: the quiet channel's answer may well reach Discord first.
    h.fake.rateLimitNext(1, { route: "POST /channels/:id/messages", path: `/channels/${busy}/messages`, retryAfterSeconds: 6 });
    const asked = Array.from({ length: 5 }, (_, i) => h.fake.message(busy, `SAY: busy-answer-${i}`, { mention: true }));
    const other = h.fake.message(quiet, "SAY: quiet-answer", { mention: true });

    for (const [i, msg] of asked.entries()) {
      await mentionAnswer(h, msg);
      const replies = repliesTo(msg);
      expect(replies).toHaveLength(1);
      expect(replies[0].content).toContain(`busy-answer-${i}`);
    }
    const created = newMessages(busy);
    expect(created).toHaveLength(5);
    for (const [i, c] of created.slice(1).entries()) expect(c.at - created[i].at).toBeGreaterThanOrEqual(950);
    // The answers that ended while they waited their turn went out whole: never edited.
    const ids = asked.map((m) => repliesTo(m)[0].id).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    const waited = ids.slice(1);
    expect(waited).toHaveLength(4);
    expect(h.fake.edits.filter((e) => waited.includes(e.messageId))).toEqual([]);

    // Barrier: the other channel's answer reached Discord before the busy channel's last one.
    expect((await mentionAnswer(h, other))[0].content).toContain("quiet-answer");
    const [quietPost] = newMessages(quiet);
    expect(quietPost.at).toBeLessThan(created[4].at);

    // The last answers waited past the delivery grace, so the outbox offered them to the bot too. Barrier: a later
    // answer in the same channel takes its turn after any second copy already waiting; none was posted.
    const later = h.fake.message(busy, "SAY: later-answer", { mention: true });
    await mentionAnswer(h, later);
    expect(repliesTo(later)[0].content).toContain("later-answer");
    expect(asked.map((m) => repliesTo(m).length)).toEqual([1, 1, 1, 1, 1]);
  }, 60_000);
});
