import { describe, expect, it } from "vitest";
import { snowflake, user, type FakeMessage, type InteractionRecord } from "../fakes/discord/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { interactionAnswer, mentionAnswer, type DiscordHarness, startDiscordSetup } from "./harness.ts";
import { EPHEMERAL } from "./roles.ts";

/**
 * The room's memory buttons through the real discord.js bot, the fake Discord
 * and the real Worker: `/duet reset` with pinned facts asks which, and a fact
 * the model proposes is pinned only by a Pin click.
 */

let stack: Stack;
let h: DiscordHarness;
startedForTests(() => startDiscordSetup(), (s) => ({ stack, h } = s));

const bob = user(snowflake(), "bob");
const room = (channel: string) => `discord-${h.guildId}-${channel}`;
const facts = async (channel: string) => (await stack.client.memory(room(channel))).facts.map((f) => f.text);
const buttons = (m: FakeMessage) => ((m.components ?? []) as { components: { custom_id: string; label: string }[] }[]).flatMap((r) => r.components);
const current = (m: FakeMessage) => h.fake.world.messages.get(m.id)!;
const privately = (rec: InteractionRecord) => rec.followups.filter((m) => Number(m.flags ?? 0) & EPHEMERAL).map((m) => m.content).join("\n");

async function duet(channel: string, subcommand: string, options: Record<string, string> = {}) {
  const rec = h.fake.interaction(channel, { subcommand, options });
  return interactionAnswer(h, rec);
}

async function press(message: FakeMessage, customId: string, from = bob): Promise<InteractionRecord> {
  const rec = h.fake.click(message, customId, from);
  await h.waitForLog(`click ${rec.id} `);
  return rec;
}

const id = (m: FakeMessage, label: string) => buttons(m).find((b) => b.label === label)!.custom_id;

describe("Discord: /duet reset in a room with pinned facts", () => {
  it("asks which; each button does what it says; a stale click resets nothing", async () => {
    const ch = h.fake.addChannel(h.guildId, "reset-ask");
    expect((await duet(ch, "reset")).text).toContain("reset Duet here: the conversation history is cleared");

    await duet(ch, "remember", { fact: "staging runs on port 8443" });
    await mentionAnswer(h, h.fake.message(ch, "SAY: some history", { mention: true }));
    const asked = (await duet(ch, "reset")).messages.find((m) => buttons(m).length)!;
    expect(asked.content).toContain('This room also keeps 1 pinned fact: "Reset, keep memory" keeps it, "Reset everything" wipes it too.');
    expect(buttons(asked).map((b) => b.label)).toEqual(["Reset, keep memory", "Reset everything", "Cancel"]);

    await press(asked, id(asked, "Cancel"));
    expect(current(asked).content).toContain(`<@${bob.id}> cancelled the reset; nothing was changed.`);
    expect((await stack.client.history(room(ch))).messages.length).toBeGreaterThan(0);

    const second = (await duet(ch, "reset")).messages.find((m) => buttons(m).length)!;
    const stale = structuredClone(second);
    await press(second, id(second, "Reset, keep memory"));
    expect(current(second).content).toContain("The pinned facts and the summary of earlier conversation are kept.");
    expect(buttons(current(second))).toEqual([]);
    expect(await facts(ch)).toEqual(["staging runs on port 8443"]);
    expect((await stack.client.history(room(ch))).messages).toEqual([]);

    // The same question's Reset everything, clicked after the reset: told, the facts stay.
    const late = await press(stale, id(stale, "Reset everything"));
    expect(privately(late)).toContain("already reset here after this was asked");
    expect(await facts(ch)).toEqual(["staging runs on port 8443"]);

    const third = (await duet(ch, "reset")).messages.find((m) => buttons(m).length)!;
    await press(third, id(third, "Reset everything"));
    expect(current(third).content).toContain("The pinned facts and the summary of earlier conversation are wiped too.");
    expect(await facts(ch)).toEqual([]);
  });

  it("refuses forged reset buttons", async () => {
    const ch = h.fake.addChannel(h.guildId, "reset-forged");
    await duet(ch, "remember", { fact: "kept" });
    const asked = (await duet(ch, "reset")).messages.find((m) => buttons(m).length)!;
    for (const forged of ["duet-reset:wipe:abc", "duet-reset:nuke:0", "duet-reset:wipe:0:extra"]) {
      const rec = await h.fake.click(asked, forged, bob);
      await h.waitForLog(`memory click ${rec.id}`);
    }
    expect(await facts(ch)).toEqual(["kept"]);
  });
});

describe("Discord: facts the model proposes", () => {
  it("shows Pin and Dismiss; Pin pins it in the clicker's name; Dismiss pins nothing; a second click is told", async () => {
    const ch = h.fake.addChannel(h.guildId, "proposed");
    const replies = await mentionAnswer(h, h.fake.message(ch, "SAY: Noted. <remember>the flaky test is test_upload</remember> <remember>ignore me</remember>", { mention: true }));
    expect(replies.map((m) => m.content).join("\n")).not.toContain("<remember>");
    const proposal = replies.find((m) => buttons(m).length)!;
    const asFirstShown = structuredClone(proposal);
    expect(proposal.content).toContain("Duet proposes pinning these 2 facts");
    expect(buttons(proposal).map((b) => b.label)).toEqual(["Pin 1", "Dismiss 1", "Pin 2", "Dismiss 2"]);
    expect(await facts(ch)).toEqual([]);

    await press(proposal, id(proposal, "Pin 1"));
    expect(current(proposal).content).toContain(`<@${bob.id}> pinned \`the flaky test is test_upload\` as fact 1.`);
    await press(proposal, id(current(proposal), "Dismiss 2"));
    expect(current(proposal).content).toContain(`<@${bob.id}> dismissed \`ignore me\`; nothing was pinned.`);
    expect(buttons(current(proposal))).toEqual([]);
    const listed = await duet(ch, "memory");
    expect(listed.text).toMatch(/1\. `the flaky test is test_upload` pinned by bob on/);
    expect(listed.text).not.toContain("ignore me");

    const again = await press(asFirstShown, id(asFirstShown, "Pin 1"), h.fake.alice);
    expect(privately(again)).toContain("no longer offered here");
    expect(await facts(ch)).toEqual(["the flaky test is test_upload"]);
  });

  it("caps proposals at 3 and refuses a forged proposal id", async () => {
    const ch = h.fake.addChannel(h.guildId, "proposed-many");
    const many = Array.from({ length: 5 }, (_, i) => `<remember>fact ${i + 1}</remember>`).join(" ");
    const replies = await mentionAnswer(h, h.fake.message(ch, `SAY: ok ${many}`, { mention: true }));
    const proposal = replies.find((m) => buttons(m).length)!;
    expect(buttons(proposal).filter((b) => b.label.startsWith("Pin"))).toHaveLength(3);
    const forged = await press(proposal, "duet-fact:pin:1:no-such-proposal");
    expect(privately(forged)).toContain("no longer offered here");
    expect(await facts(ch)).toEqual([]);
  });
});
