import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { interactionAnswer, mentionAnswer, type DiscordHarness, startDiscordSetup } from "./harness.ts";

/** Pinned facts end to end through the real discord.js bot, the fake Discord and the real Worker. */

let stack: Stack;
let h: DiscordHarness;
startedForTests(() => startDiscordSetup(), (s) => ({ stack, h } = s));

/** `/duet <subcommand>` with its options, answered: what the person sees and whether only they see it. */
async function duet(channel: string, subcommand: string, options: Record<string, string> = {}) {
  const rec = h.fake.interaction(channel, { subcommand, options });
  const { text } = await interactionAnswer(h, rec);
  return { text, ephemeral: rec.ephemeral };
}

describe("Discord: /duet remember, memory, forget", () => {
  it("pins a fact for the channel to see, lists it privately, the model reads it, and unpins it", async () => {
    const ch = h.fake.addChannel(h.guildId, "memory");
    expect(await duet(ch, "memory")).toEqual({ text: expect.stringContaining("`/duet remember fact:FACT` pins one"), ephemeral: true });
    const pinned = await duet(ch, "remember", { fact: "the flaky test is test_upload" });
    expect(pinned).toEqual({ text: `📌 <@${h.fake.alice.id}> pinned fact 1: \`the flaky test is test_upload\`. Duet keeps it in mind in every answer here.`, ephemeral: false });
    expect((await duet(ch, "memory")).text).toMatch(/\n1\. `the flaky test is test_upload` pinned by /);

    const marker = `after-pin-${ch}`;
    await mentionAnswer(h, h.fake.message(ch, `SAY: ok ${marker}`, { mention: true }));
    const [call] = stack.model.calls.filter((c) => c.messages.at(-1)?.content.includes(marker));
    expect(call.messages.some((m) => m.content.includes("1. the flaky test is test_upload (pinned by"))).toBe(true);

    expect(await duet(ch, "forget", { number: "1" })).toEqual({ text: expect.stringContaining("unpinned fact 1"), ephemeral: false });
    expect((await stack.client.memory(`discord-${h.guildId}-${ch}`)).facts).toEqual([]);
  });

  it("@Duet remember <fact> pins it in a reply for the channel, with no model call; a mention asking whether Duet remembers is asked", async () => {
    const ch = h.fake.addChannel(h.guildId, "memory-mention");
    const fact = `deploys freeze on Fridays ${ch}`;
    const [pinned] = await mentionAnswer(h, h.fake.message(ch, `remember ${fact}`, { mention: true }));
    expect(pinned.content).toBe(`📌 <@${h.fake.alice.id}> pinned fact 1: \`${fact}\`. Duet keeps it in mind in every answer here.`);
    expect((await stack.client.memory(`discord-${h.guildId}-${ch}`)).facts.map((f) => [f.text, f.pinnedBy])).toEqual([[fact, h.fake.alice.id]]);
    // A question is asked as any other (the barrier that the pin reached no model: it was asked after it).
    const question = `remember what we said about deploys ${ch}?`;
    await mentionAnswer(h, h.fake.message(ch, question, { mention: true }));
    expect(stack.model.calls.filter((c) => c.messages.at(-1)?.content.includes(question))).toHaveLength(1);
    expect(stack.model.calls.filter((c) => c.messages.at(-1)?.content.includes(`remember ${fact}`))).toHaveLength(0);
  });

  it("answers a number that is not one privately, in Discord's own spelling, and one that is not there with what exists", async () => {
    const ch = h.fake.addChannel(h.guildId, "memory-bad");
    expect(await duet(ch, "forget", { number: "two" })).toEqual({ text: expect.stringContaining("`/duet memory` lists them, e.g. `/duet forget number:2`"), ephemeral: true });
    // Discord fixes a reply's visibility when it is deferred, before the Worker answers: a forget is deferred for the channel.
    expect(await duet(ch, "forget", { number: "4" })).toEqual({ text: expect.stringContaining("No fact number 4 here (the room keeps none yet"), ephemeral: false });
  });
});
