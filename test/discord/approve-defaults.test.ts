import { OWN_PROPOSAL } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { snowflake, user, type FakeMessage, type InteractionRecord } from "../fakes/discord/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { interactionAnswer, mentionAnswer, type DiscordHarness, startDiscordSetup } from "./harness.ts";
import { privately, withRole } from "./roles.ts";

/**
 * Who may approve or change the policy when the operator set less than everything, through the real
 * discord.js bot, the fake Discord and a real Worker whose rooms default to
 * `approve`: only DISCORD_ALLOW_RUN is set (the ops role), with DUET_APPROVE_OWN=no.
 */

const OPS_ROLE = snowflake();

let stack: Stack;
let h: DiscordHarness;
const ops = user(snowflake(), "ops");
const ops2 = user(snowflake(), "ops2");
const mallory = user(snowflake(), "mallory");

startedForTests(
  () => startDiscordSetup({ env: () => ({ DISCORD_ALLOW_RUN: OPS_ROLE, DUET_APPROVE_OWN: "no" }), stack: { vars: { DUET_RUN_POLICY: "approve" } } }),
  (s) => ({ stack, h } = s),
);

const ran = (cmd: string) => stack.executor!.calls.filter((c) => c.command === cmd).length;
const runButton = (m: FakeMessage) => ((m.components ?? []) as { components: { custom_id: string; label: string }[] }[]).flatMap((r) => r.components).find((b) => b.label === "Run 1")!.custom_id;
const current = (m: FakeMessage) => h.fake.world.messages.get(m.id)!;

const ready = () => withRole(h, OPS_ROLE, [ops, ops2], [mallory]);

/** `from` asks in a new channel; the answer proposes `cmd` (the room's default policy is approve). */
async function proposeFor(from: typeof ops, cmd: string): Promise<FakeMessage> {
  await ready();
  const ch = h.fake.addChannel(h.guildId, `perm-${snowflake()}`);
  const msg = h.fake.message(ch, `SAY: Proposing. <run>${cmd}</run>`, { mention: true, from });
  const replies = await mentionAnswer(h, msg);
  return replies.find((m) => ((m.components ?? []) as unknown[]).length > 0)!;
}

async function press(message: FakeMessage, from: typeof ops): Promise<InteractionRecord> {
  const rec = h.fake.click(message, runButton(message), from);
  await h.waitForLog(`click ${rec.id} `);
  return rec;
}

describe("Discord: with only DISCORD_ALLOW_RUN set", () => {
  it("refuses Run to someone outside it, on their own proposal too, and runs it for a member of it", async () => {
    const proposal = await proposeFor(mallory, "echo d-run-list-approves");
    expect(privately(await press(proposal, mallory))).toMatch(/Only members with the <@&\d+> role may run or skip the commands Duet proposes here; nothing was run\./);
    expect(ran("echo d-run-list-approves")).toBe(0);
    await press(proposal, ops);
    expect(current(proposal).content).toContain(`<@${ops.id}> ran \`echo d-run-list-approves\``);
    expect(ran("echo d-run-list-approves")).toBe(1);
  });
});

describe("Discord: /duet policy with only DISCORD_ALLOW_RUN set", () => {
  it("is refused privately to someone outside it, leaving the room under approve, and changes it for a member of it", async () => {
    await ready();
    const ch = h.fake.addChannel(h.guildId, `policy-${snowflake()}`);
    const room = `discord-${h.guildId}-${ch}`;
    const refused = h.fake.interaction(ch, { subcommand: "policy", options: { mode: "auto" } }, mallory);
    const { text } = await interactionAnswer(h, refused);
    expect(refused.ephemeral).toBe(true);
    expect(text).toMatch(/Only members with the <@&\d+> role may change the run policy here\./);
    expect(await stack.client.policy(room)).toEqual({ runPolicy: "approve", source: "default" });
    // Her next question still only proposes its command.
    const replies = await mentionAnswer(h, h.fake.message(ch, "SAY: Proposing. <run>echo d-after-refused-policy</run>", { mention: true, from: mallory }));
    expect(replies.some((m) => ((m.components ?? []) as unknown[]).length > 0)).toBe(true);
    expect(ran("echo d-after-refused-policy")).toBe(0);
    const set = h.fake.interaction(ch, { subcommand: "policy", options: { mode: "auto" } }, ops);
    expect((await interactionAnswer(h, set)).text).toContain(`<@${ops.id}> set the run policy to **auto**`);
    expect((await stack.client.policy(room)).runPolicy).toBe("auto");
  });
});

describe("Discord: with DUET_APPROVE_OWN=no", () => {
  it("tells the asker privately that someone else must decide, runs nothing, and runs it for another member", async () => {
    const proposal = await proposeFor(ops, "echo d-not-my-own");
    expect(privately(await press(proposal, ops))).toContain(OWN_PROPOSAL);
    expect(ran("echo d-not-my-own")).toBe(0);
    await press(proposal, ops2);
    expect(current(proposal).content).toContain(`<@${ops2.id}> ran \`echo d-not-my-own\``);
    expect(ran("echo d-not-my-own")).toBe(1);
  });
});
