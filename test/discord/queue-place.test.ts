import { queuedNote } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { snowflake, user } from "../fakes/discord/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { releaseHeld } from "../helpers/model-control.ts";
import type { Stack } from "../helpers/stack.ts";
import { interactionAnswer, mentionAnswer, type DiscordHarness, startDiscordSetup } from "./harness.ts";

/**
 * A room answers one question at a time. On Discord, `/duet ask` behind others
 * shows the asker their place in its deferred reply, which becomes the answer;
 * a mention behind others gets a ⏳ on the message (a reply cannot be private,
 * and one per waiting person would crowd the busy channel), taken off when
 * its answer starts.
 */

describe("Discord: a question asked while others wait in the channel", () => {
  let stack: Stack;
  let h: DiscordHarness;
  // The first turn is held while the others queue: the model may take a minute.
  startedForTests(() => startDiscordSetup({ stack: { vars: { MODEL_TIMEOUT_MS: "60000" } } }), (s) => ({ stack, h } = s));

  const bob = user(snowflake(), "bob");
  const carol = user(snowflake(), "carol");

  async function holdRoom(hold: string): Promise<void> {
    await expect.poll(() => stack.model.calls.filter((c) => JSON.stringify(c).includes(hold)).length, { timeout: 20_000 }).toBe(1);
  }

  it("/duet ask: the 2nd and 3rd deferred replies show their place, then become their answers", async () => {
    const ch = h.fake.addChannel(h.guildId, "queue-ask");
    const hold = `discord-queue-ask-${Date.now()}`;
    const first = h.fake.interaction(ch, { subcommand: "ask", options: { prompt: `HOLD:${hold} CHUNK:6 SAY: first-in-line answer` } });
    await holdRoom(hold);
    const second = h.fake.interaction(ch, { subcommand: "ask", options: { prompt: "SAY: second-in-line answer" } }, bob);
    // Each waits for the one before it to be told: the room counts them in the order they reached it.
    await expect.poll(() => second.original?.content, { timeout: 20_000 }).toBe(queuedNote(1));
    const third = h.fake.interaction(ch, { subcommand: "ask", options: { prompt: "SAY: third-in-line answer" } }, carol);
    await expect.poll(() => third.original?.content, { timeout: 20_000 }).toBe(queuedNote(2));

    await releaseHeld(stack.model, hold);
    expect((await interactionAnswer(h, first)).text).toContain("first-in-line answer");
    for (const [rec, said, note] of [[second, "second-in-line answer", queuedNote(1)], [third, "third-in-line answer", queuedNote(2)]] as const) {
      const { messages, text } = await interactionAnswer(h, rec);
      expect(text).toContain(said);
      expect(text).not.toContain("ahead of yours");
      // The same message: the note was its first content, the answer its last.
      const shown = h.fake.edits.filter((e) => e.messageId === messages[0].id).map((e) => e.content);
      expect(shown[0]).toBe(note);
      expect(shown.filter((c) => c === note)).toHaveLength(1);
    }
    // The first asker never waited: their reply never said so.
    expect(h.fake.edits.filter((e) => e.messageId === first.original?.id && e.content.includes("ahead of yours"))).toEqual([]);
    // No message of its own in the channel says it.
    expect(h.fake.messagesIn(ch).filter((m) => m.content.includes("ahead of yours") && m.id !== second.original?.id && m.id !== third.original?.id)).toEqual([]);
  }, 120_000);

  it("mentions: the 2nd and 3rd get a ⏳ while they wait and no message says so; it comes off when their answer starts", async () => {
    const ch = h.fake.addChannel(h.guildId, "queue-mention");
    const hold = `discord-queue-mention-${Date.now()}`;
    const first = h.fake.message(ch, `HOLD:${hold} CHUNK:6 SAY: first-in-line answer`, { mention: true });
    await holdRoom(hold);
    const reactions = (id: string) => h.fake.world.reactions.get(id) ?? [];
    const second = h.fake.message(ch, "SAY: second-in-line answer", { mention: true, from: bob });
    await expect.poll(() => reactions(second.id), { timeout: 20_000 }).toEqual(["⏳"]);
    const third = h.fake.message(ch, "SAY: third-in-line answer", { mention: true, from: carol });
    await expect.poll(() => reactions(third.id), { timeout: 20_000 }).toEqual(["⏳"]);
    // While they wait, the channel holds the three questions and the first one's growing answer, nothing more.
    expect(h.fake.messagesIn(ch).filter((m) => m.author.id === h.fake.botUser.id && !m.content.includes("first-in-line"))).toEqual([]);

    await releaseHeld(stack.model, hold);
    // Each answer replies to its own question (later answers follow in the channel too).
    const replyTo = async (m: typeof first) => (await mentionAnswer(h, m)).find((r) => (r.message_reference as { message_id?: string } | undefined)?.message_id === m.id)?.content;
    expect(await replyTo(first)).toContain("first-in-line answer");
    expect(await replyTo(second)).toContain("second-in-line answer");
    expect(await replyTo(third)).toContain("third-in-line answer");
    for (const m of [first, second, third]) expect(reactions(m.id)).toEqual([]);
    // The first asker never waited: no ⏳ was ever put on their message.
    expect(h.fake.calls.filter((c) => c.method === "PUT" && c.path.includes(`/messages/${first.id}/reactions/`))).toEqual([]);
  }, 120_000);
});
