import { STOP_PREFIX } from "@duet/discord";
import { queuedNote } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { hasV2Flag, shownButtons, shownText, snowflake, type FakeMessage, type InteractionRecord } from "../fakes/discord/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { releaseHeld } from "../helpers/model-control.ts";
import type { Stack } from "../helpers/stack.ts";
import { fencesBalanced, interactionAnswer, mentionAnswer, type DiscordHarness, startDiscordSetup } from "./harness.ts";

/**
 * Answers as Components V2 messages (DISCORD_COMPONENTS=v2), through the real
 * discord.js bot, the fake Discord (which refuses what Discord would: content
 * beside the flag, past 40 components or 4,000 characters, the flag changed
 * by an edit) and the real Worker: a live answer is one container that grows,
 * a proposal's Run and Skip sit in it, and a long answer goes on in more V2
 * messages with its long output as an attached file.
 */

let stack: Stack;
let h: DiscordHarness;
startedForTests(
  // Answers unconfirmed for 300 ms are offered to the bots' delivery loop (15 s in production).
  () => startDiscordSetup({ env: () => ({ DISCORD_COMPONENTS: "v2" }), stack: { vars: { MODEL_TIMEOUT_MS: "30000", DUET_DELIVERY_GRACE_MS: "300" } } }),
  (s) => ({ stack, h } = s),
);

const ran = (cmd: string) => stack.executor!.calls.filter((c) => c.command === cmd).length;
const shown = (rec: InteractionRecord) => [rec.original, ...rec.followups].filter((m): m is FakeMessage => m !== null);
const current = (m: FakeMessage) => h.fake.world.messages.get(m.id)!;
/** The calls the bot made with the interaction's token that Discord refused. */
const refused = (rec: InteractionRecord) => h.fake.calls.filter((c) => c.path.includes(rec.token) && c.status >= 400);
const textDisplays = (m: FakeMessage): string[] => {
  const out: string[] = [];
  const walk = (cs: unknown) => (Array.isArray(cs) ? cs : []).forEach((c: { type?: number; content?: string; components?: unknown }) => (c.type === 10 ? out.push(c.content!) : walk(c.components)));
  walk(m.components);
  return out;
};
const componentCount = (cs: unknown): number => (Array.isArray(cs) ? cs : []).reduce((n: number, c: { components?: unknown }) => n + 1 + componentCount(c.components), 0);

async function ask(prompt: string) {
  const channel = h.fake.addChannel(h.guildId, `v2-${snowflake()}`);
  return { channel, rec: h.fake.interaction(channel, { subcommand: "ask", options: { prompt } }) };
}

describe("Discord answers as Components V2 messages", () => {
  it("grows one V2 message in place while the answer runs a command, with Stop while live and none at the end", async () => {
    const step = `v2-grow-${Date.now()}`;
    const said = "Let me look at the build first, step by step.\n<run>echo built-ok</run>\nThe build works and the tests pass.";
    const { rec } = await ask(`STEP:${step} CHUNK:24 SAY: ${said}`);
    const editsOf = () => (rec.original ? h.fake.edits.filter((e) => e.messageId === rec.original!.id) : []);
    // The model wrote its first piece and holds: the reply shows it, as a V2 message under a Stop button.
    await expect.poll(() => editsOf().some((e) => e.content.includes("Let me look")), { timeout: 20_000, interval: 20 }).toBe(true);
    const live = editsOf().find((e) => e.content.includes("Let me look"))!;
    expect(hasV2Flag(rec.original!.flags)).toBe(true);
    expect(live.content).not.toContain("The build works");
    expect(live.buttons).toEqual([`${STOP_PREFIX}discord-${h.guildId}-${rec.channelId}`]);
    for (let i = 1; i <= Math.ceil(said.length / 24); i++) await releaseHeld(stack.model, `${step}.${i}`);

    await interactionAnswer(h, rec);
    const [message, ...more] = shown(rec);
    expect(more).toEqual([]);
    expect(hasV2Flag(message.flags)).toBe(true);
    expect(message.content).toBe("");
    const text = shownText(message);
    expect(text).toContain("Let me look at the build first, step by step.");
    expect(text).toContain("The build works and the tests pass.");
    expect(text).toMatch(/✅ \*\*exit 0 · [\d.]+ m?s\*\*\n```\n\$ echo built-ok\nbuilt-ok\n```/);
    // The answer's text and the command's block are displays of their own.
    expect(textDisplays(message).some((t) => t.startsWith("✅ **exit 0"))).toBe(true);
    expect(shownButtons(message)).toEqual([]);
    // Every edit went to the same message, each a V2 one Discord took; it grew, and its last shows no Stop.
    const edits = editsOf();
    expect(edits.length).toBeGreaterThanOrEqual(2);
    expect(edits.at(-1)?.buttons).toEqual([]);
    expect(refused(rec)).toEqual([]);
    expect(ran("echo built-ok")).toBe(1);
  }, 60_000);

  it("answers a mention with one V2 reply to it, the command's block inside", async () => {
    const channel = h.fake.addChannel(h.guildId, `v2-mention-${snowflake()}`);
    const question = h.fake.message(channel, "SAY: Checking. <run>echo v2-mention</run>", { mention: true });
    const [reply, ...more] = await mentionAnswer(h, question);
    expect(more).toEqual([]);
    expect(hasV2Flag(reply.flags)).toBe(true);
    expect(reply.message_reference).toMatchObject({ message_id: question.id });
    expect(shownText(reply)).toMatch(/Checking\.\n✅ \*\*exit 0 · [\d.]+ m?s\*\*\n```\n\$ echo v2-mention\nv2-mention\n```/);
    expect(shownButtons(reply)).toEqual([]);
    expect(h.fake.calls.filter((c) => c.path.startsWith(`/channels/${channel}/`) && c.status >= 400)).toEqual([]);
  }, 60_000);

  it("delivers an answer the room kept (its asker's bot gone) as a V2 message", async () => {
    const channel = h.fake.addChannel(h.guildId, `v2-kept-${snowflake()}`);
    const room = `discord-${h.guildId}-${channel}`;
    const deliver = { platform: "discord" as const, place: { channel } };
    await stack.client.message(room, { text: "SAY: Kept for later. <run>echo v2-kept</run>", userId: h.fake.alice.id, idempotencyKey: `v2-kept-${channel}`, deliver });
    const fromBot = () => h.fake.messagesIn(channel).filter((m) => m.author.id === h.fake.botUser.id);
    await expect.poll(() => fromBot().length, { timeout: 30_000 }).toBeGreaterThan(0);
    const [delivered, ...more] = fromBot();
    expect(more).toEqual([]);
    expect(hasV2Flag(delivered.flags)).toBe(true);
    expect(shownText(delivered)).toMatch(/Kept for later\.\n✅ \*\*exit 0 · [\d.]+ m?s\*\*\n```\n\$ echo v2-kept\nv2-kept\n```/);
    expect(h.fake.calls.filter((c) => c.path.startsWith(`/channels/${channel}/`) && c.status >= 400)).toEqual([]);
  }, 60_000);

  it("shows a proposal's Run and Skip inside the answer's container, and a click runs it and updates that message", async () => {
    const channel = h.fake.addChannel(h.guildId, `v2-approve-${snowflake()}`);
    const policy = h.fake.interaction(channel, { subcommand: "policy", options: { mode: "approve" } });
    expect((await interactionAnswer(h, policy)).text).toContain("set the run policy to **approve**");
    const rec = h.fake.interaction(channel, { subcommand: "ask", options: { prompt: "SAY: Proposing a check. <run>echo v2-approved</run>" } });
    await interactionAnswer(h, rec);
    const [proposal, ...more] = shown(rec);
    expect(more).toEqual([]);
    expect(hasV2Flag(proposal.flags)).toBe(true);
    const container = (proposal.components as { type: number; components: { type: number; components?: { label: string; custom_id: string }[] }[] }[])[0];
    expect(container.type).toBe(17);
    const row = container.components.find((c) => c.type === 1)!;
    expect(row.components!.map((b) => b.label)).toEqual(["Run 1", "Skip 1"]);
    expect(shownText(proposal)).toContain("Proposing a check.");
    expect(shownText(proposal)).toContain("**1.** `echo v2-approved`");
    expect(ran("echo v2-approved")).toBe(0);

    const click = h.fake.click(proposal, row.components![0].custom_id);
    await h.waitForLog(`click ${click.id} answered`);
    expect(ran("echo v2-approved")).toBe(1);
    const after = current(proposal);
    expect(hasV2Flag(after.flags)).toBe(true);
    expect(shownText(after)).toContain(`<@${h.fake.alice.id}> ran \`echo v2-approved\``);
    expect(shownText(after)).toContain("Proposing a check.");
    expect(shownButtons(after)).toEqual([]);
    expect(refused(click)).toEqual([]);
  }, 60_000);

  it("turns a deferred reply that showed its place in the queue into the V2 answer, its note cleared", async () => {
    const channel = h.fake.addChannel(h.guildId, `v2-queue-${snowflake()}`);
    const hold = `v2-queue-${Date.now()}`;
    const first = h.fake.interaction(channel, { subcommand: "ask", options: { prompt: `HOLD:${hold} CHUNK:6 SAY: first v2 answer` } });
    await expect.poll(() => stack.model.calls.filter((c) => JSON.stringify(c).includes(hold)).length, { timeout: 20_000 }).toBe(1);
    const second = h.fake.interaction(channel, { subcommand: "ask", options: { prompt: "SAY: second v2 answer" } });
    await expect.poll(() => second.original?.content, { timeout: 20_000 }).toBe(queuedNote(1));
    await releaseHeld(stack.model, hold);
    await interactionAnswer(h, first);
    const [answer, ...more] = (await interactionAnswer(h, second)).messages;
    expect(more).toEqual([]);
    expect(hasV2Flag(answer.flags)).toBe(true);
    expect(answer.content).toBe("");
    expect(shownText(answer)).toContain("second v2 answer");
    expect(refused(second)).toEqual([]);
  }, 60_000);

  it("keeps a long answer within Discord's V2 limits: more V2 messages, code blocks whole, long output as an attached file", async () => {
    const script = `\`\`\`bash\n${Array.from({ length: 180 }, (_, i) => `echo "step ${i} of the long build script"`).join("\n")}\n\`\`\``;
    const { rec } = await ask(`CHUNK:400 DRIP:40 SAY: Here is the whole script:\n${script}\n<run>seq 1 3000</run>\nRun it from the repository root.`);
    await interactionAnswer(h, rec);
    const messages = shown(rec);
    expect(messages.length).toBeGreaterThan(1);
    for (const m of messages) {
      expect(hasV2Flag(m.flags)).toBe(true);
      expect(textDisplays(m).join("").length).toBeLessThanOrEqual(4_000);
      expect(componentCount(m.components)).toBeLessThanOrEqual(40);
      for (const t of textDisplays(m)) expect(fencesBalanced(t)).toBe(true);
    }
    const all = messages.map(shownText).join("\n");
    expect(all).toContain('echo "step 0 of the long build script"');
    expect(all).toContain('echo "step 179 of the long build script"');
    expect(all).toContain("Run it from the repository root.");
    expect(all).toMatch(/omitted; full output in output\.txt/);
    // The whole output rides on the last message, shown by a file component.
    const last = messages.at(-1)!;
    expect((last.attachments as { filename: string }[]).map((a) => a.filename)).toEqual(["output.txt"]);
    expect(JSON.stringify(last.components)).toContain('"url":"attachment://output.txt"');
    expect(refused(rec)).toEqual([]);
  }, 90_000);
});
