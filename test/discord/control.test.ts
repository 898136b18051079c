import { describe, expect, it } from "vitest";
import { snowflake, user, type FakeMessage, type InteractionRecord } from "../fakes/discord/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { interactionAnswer, mentionAnswer, type DiscordHarness, startDiscordSetup } from "./harness.ts";
import { EPHEMERAL, privately, withRole } from "./roles.ts";

/**
 * Control end to end through the real discord.js bot, the fake Discord and a
 * real Worker. Members with the ops role may run directly; the ops role or the
 * Manage Channels permission may approve; Manage Channels may set the policy.
 * alice has every permission and no role; ops has the role and may only view
 * and send; mallory has neither.
 */

const OPS_ROLE = snowflake();

let stack: Stack;
let h: DiscordHarness;
const ops = user(snowflake(), "ops");
const mallory = user(snowflake(), "mallory");

startedForTests(
  () =>
    startDiscordSetup({
      env: () => ({ DISCORD_ALLOW_RUN: OPS_ROLE, DISCORD_ALLOW_APPROVE: `${OPS_ROLE}, manage-channels`, DISCORD_ALLOW_POLICY: "manage-channels", DISCORD_ALLOW_RESET: "manage-channels" }),
    }),
  (s) => ({ stack, h } = s),
);

const ran = (cmd: string) => stack.executor!.calls.filter((c) => c.command === cmd).length;
const room = (channel: string) => `discord-${h.guildId}-${channel}`;

const ready = () => withRole(h, OPS_ROLE, [ops], [mallory]);

/** A slash command, answered: what the person sees and whether only they see it. */
async function command(channel: string, subcommand: string, options: Record<string, string> = {}, from = h.fake.alice) {
  await ready();
  const rec = h.fake.interaction(channel, { subcommand, options }, from);
  const { text } = await interactionAnswer(h, rec);
  return { text, ephemeral: rec.ephemeral, rec };
}

/** A click on one of the bot's buttons; resolves once the bot has handled it. */
async function press(message: FakeMessage, customId: string, from = h.fake.alice): Promise<InteractionRecord> {
  const rec = h.fake.click(message, customId, from);
  await h.waitForLog(`click ${rec.id} `);
  return rec;
}
const publicly = (rec: InteractionRecord) => rec.followups.filter((m) => !(Number(m.flags ?? 0) & EPHEMERAL)).map((m) => m.content).join("\n");
const buttons = (m: FakeMessage) => ((m.components ?? []) as { components: { custom_id: string; label: string }[] }[]).flatMap((r) => r.components);
const current = (m: FakeMessage) => h.fake.world.messages.get(m.id)!;
/** Edits of a message so far (a live answer was edited into its final form before any click). */
const editsOf = (m: FakeMessage) => h.fake.edits.filter((e) => e.messageId === m.id).length;

async function setApprove(channel: string): Promise<void> {
  const set = await command(channel, "policy", { mode: "approve" });
  expect(set.ephemeral).toBe(false);
  expect(set.text).toContain(`<@${h.fake.alice.id}> set the run policy to **approve**`);
}

async function propose(channel: string, cmds: string[]): Promise<FakeMessage> {
  await ready();
  const msg = h.fake.message(channel, `SAY: Proposing. ${cmds.map((c) => `<run>${c}</run>`).join(" ")}`, { mention: true, from: mallory });
  const replies = await mentionAnswer(h, msg);
  return replies.find((m) => buttons(m).length > 0)!;
}

describe("Discord: under the approve run policy", () => {
  it("a thread follows its channel's policy: /duet policy there says so, and a mention there runs nothing", async () => {
    const ch = h.fake.addChannel(h.guildId, "approve-parent");
    const th = h.fake.addThread(ch, "a thread");
    await setApprove(ch);
    const shown = await command(th, "policy");
    expect(shown.ephemeral).toBe(true);
    expect(shown.text).toContain("The run policy here is **approve**, from this thread's channel");
    const proposal = await propose(th, ["echo d-in-thread"]);
    expect(buttons(proposal).map((b) => b.label)).toEqual(["Run 1", "Skip 1"]);
    expect(ran("echo d-in-thread")).toBe(0);
  });

  it("runs nothing until an allowed member clicks Run; shows who ran or skipped what; the output follows", async () => {
    const ch = h.fake.addChannel(h.guildId, "approve");
    await setApprove(ch);
    const proposal = await propose(ch, ["echo d-one", "echo d-two"]);
    expect(buttons(proposal).map((b) => b.label)).toEqual(["Run 1", "Skip 1", "Run 2", "Skip 2"]);
    expect(proposal.content).toContain("⏳ **1.** `echo d-one`");
    expect(ran("echo d-one") + ran("echo d-two")).toBe(0);
    const [run1, , run2, skip2] = buttons(proposal).map((b) => b.custom_id);
    const posted = editsOf(proposal);

    const refused = await press(proposal, run1, mallory);
    expect(privately(refused)).toMatch(/Only members with the <@&\d+> role or members with the Manage Channels permission may run or skip/);
    expect(ran("echo d-one")).toBe(0);
    expect(editsOf(proposal)).toBe(posted);

    const byRole = await press(proposal, run1, ops);
    expect(publicly(byRole)).toMatch(/```\n\$ echo d-one\nd-one\n```/);
    expect(ran("echo d-one")).toBe(1);
    expect(current(proposal).content).toContain(`✅ **1.** <@${ops.id}> ran \`echo d-one\``);
    expect(buttons(current(proposal)).map((b) => b.custom_id)).toEqual([run2, skip2]);

    const skipped = await press(proposal, skip2, h.fake.alice);
    expect(publicly(skipped)).toBe("");
    expect(current(proposal).content).toContain(`⏭️ **2.** <@${h.fake.alice.id}> skipped \`echo d-two\``);
    expect(current(proposal).content).toContain(`✅ **1.** <@${ops.id}> ran`);
    expect(buttons(current(proposal))).toEqual([]);
    expect(ran("echo d-two")).toBe(0);

    // A stale client clicks again: told privately, nothing changes.
    const edits = h.fake.edits.filter((e) => e.messageId === proposal.id).length;
    const again = await press(proposal, run1, ops);
    expect(privately(again)).toMatch(/already decided/);
    expect(ran("echo d-one")).toBe(1);
    expect(h.fake.edits.filter((e) => e.messageId === proposal.id)).toHaveLength(edits);
  });

  it("puts Run and Skip on a /duet ask answer too, and shows the decision in that reply", async () => {
    const ch = h.fake.addChannel(h.guildId, "approve-ask");
    await setApprove(ch);
    const asked = await command(ch, "ask", { prompt: "SAY: Here. <run>echo d-from-ask</run>" }, mallory);
    const reply = asked.rec.original!;
    expect(buttons(reply).map((b) => b.label)).toEqual(["Run 1", "Skip 1"]);
    expect(ran("echo d-from-ask")).toBe(0);
    const click = await press(reply, buttons(reply)[0].custom_id, ops);
    expect(publicly(click)).toContain("d-from-ask");
    expect(current(reply).content).toContain(`✅ **1.** <@${ops.id}> ran \`echo d-from-ask\``);
    expect(buttons(current(reply))).toEqual([]);
    expect(ran("echo d-from-ask")).toBe(1);
  });

  it("answers a button it never made privately and changes nothing", async () => {
    const ch = h.fake.addChannel(h.guildId, "junk");
    await setApprove(ch);
    const proposal = await propose(ch, ["echo d-junk"]);
    const posted = editsOf(proposal);
    for (const id of ["duet-approval:nuke:1:abc", "duet-approval:run:1:../../sandbox/exec", `duet-approval:run:1:${"a".repeat(65)}`, "duet-approval:run:x:abc"]) {
      const rec = h.fake.click(proposal, id, ops);
      await h.waitForLog(`ignored a Run/Skip click ${rec.id}`);
      expect(rec.ephemeral).toBe(true);
      expect(rec.original?.content).toMatch(/not one of Duet's proposals/);
    }
    // An id that is well formed but not this room's: the Worker does not know it.
    const stranger = await press(proposal, "duet-approval:run:1:00000000-0000-4000-8000-000000000000", ops);
    expect(privately(stranger)).toMatch(/./);
    expect(ran("echo d-junk")).toBe(0);
    expect(editsOf(proposal)).toBe(posted);
  });
});

describe("Discord: who may", () => {
  it("refuses /duet run and /duet policy privately to members not allowed, and runs them for those allowed", async () => {
    const ch = h.fake.addChannel(h.guildId, "who-may");
    const noRole = await command(ch, "run", { command: "echo d-refused" }, h.fake.alice);
    expect(noRole.ephemeral).toBe(true);
    expect(noRole.text).toMatch(/Only members with the <@&\d+> role may run commands with `\/duet run` here/);
    const policy = await command(ch, "policy", { mode: "approve" }, ops);
    expect(policy.ephemeral).toBe(true);
    expect(policy.text).toMatch(/Only members with the Manage Channels permission may change the run policy/);
    expect((await stack.client.policy(room(ch))).runPolicy).toBe("auto");
    const reset = await command(ch, "reset", {}, mallory);
    expect(reset.ephemeral).toBe(true);
    expect(reset.text).toMatch(/may reset Duet here/);

    const allowed = await command(ch, "run", { command: "echo d-allowed" }, ops);
    expect(allowed.ephemeral).toBe(false);
    expect(allowed.text).toMatch(/d-allowed/);
    expect(ran("echo d-refused")).toBe(0);
    expect(ran("echo d-allowed")).toBe(1);
    const shown = await command(ch, "policy", {}, mallory);
    expect(shown.ephemeral).toBe(true);
    expect(shown.text).toContain("The run policy here is **auto**");
  });

  it("answers a policy that is not auto or approve with its usage", async () => {
    const ch = h.fake.addChannel(h.guildId, "bad-policy");
    for (const mode of ["yolo", "APPROVE please", "x".repeat(6000), "@everyone"]) {
      const r = await command(ch, "policy", { mode });
      expect(r.ephemeral).toBe(true);
      expect(r.text).toMatch(/Unknown run policy `[^`]*`\. `\/duet policy` takes `auto`/);
    }
    expect((await stack.client.policy(room(ch))).runPolicy).toBe("auto");
  });
});

describe("Discord: /duet audit and help", () => {
  it("lists commands with the right people, to the caller only", async () => {
    const ch = h.fake.addChannel(h.guildId, "audit");
    await command(ch, "run", { command: "echo d-audit-direct" }, ops);
    await setApprove(ch);
    const proposal = await propose(ch, ["echo d-audit-approved"]);
    await press(proposal, buttons(proposal)[0].custom_id, h.fake.alice);
    const { text, ephemeral } = await command(ch, "audit", {}, mallory);
    expect(ephemeral).toBe(true);
    const lines = text.split("\n").filter((l) => l.startsWith("•"));
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`<@${ops.id}> ran \`echo d-audit-direct\` \\(exit 0`)),
      expect.stringContaining(`<@${h.fake.alice.id}> set the run policy to approve`),
      expect.stringMatching(new RegExp(`\`echo d-audit-approved\` run by <@${h.fake.alice.id}>, proposed for <@${mallory.id}> \\(exit 0`)),
    ]);
  });

  it("says whether the sandbox has network and the room's policy", async () => {
    const ch = h.fake.addChannel(h.guildId, "help");
    const { text, ephemeral } = await command(ch, "help", {}, mallory);
    expect(ephemeral).toBe(true);
    expect(text).toContain("no network access");
    expect(text).toContain("Run policy here: auto");
    expect(text).toContain("/duet policy");
  });
});
