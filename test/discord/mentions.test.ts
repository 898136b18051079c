import { EMPTY_MENTION_HINT } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { user, snowflake } from "../fakes/discord/index.ts";
import type { Stack } from "../helpers/stack.ts";
import { fencesBalanced, mentionAnswer, modelCallsFor, type DiscordHarness, startDiscordSetup } from "./harness.ts";

/** `@Duet ...` messages through the real discord.js client, the fake Discord and the real Worker. */

describe("Discord mentions", () => {
  let stack: Stack;
  let h: DiscordHarness;
  // Typing renewed every 300 ms instead of 8 s, so a turn of a second or two shows the renewals.
  startedForTests(() => startDiscordSetup({ typingRenewMs: 300 }), (s) => ({ stack, h } = s));

  const room = (channel: string, thread?: string) => `discord-${h.guildId}-${channel}${thread ? `-${thread}` : ""}`;

  it("a mention in a channel reaches the channel's room and is answered with a reply, typing shown meanwhile", async () => {
    const ch = h.fake.addChannel(h.guildId, "mention");
    const msg = h.fake.message(ch, "SAY: Checking <run>echo channel-mention</run>", { mention: true });
    const [answer, ...more] = await mentionAnswer(h, msg);
    expect(more).toEqual([]);
    expect(answer.message_reference).toMatchObject({ message_id: msg.id });
    expect(answer.content).toContain("Checking");
    expect(answer.content).toMatch(/```\n\$ echo channel-mention\nchannel-mention\n```/);
    const typing = h.fake.calls.findIndex((c) => c.path === `/channels/${ch}/typing`);
    const reply = h.fake.calls.findIndex((c) => c.path === `/channels/${ch}/messages`);
    expect(typing).toBeGreaterThanOrEqual(0);
    expect(typing).toBeLessThan(reply);
    const { messages } = await stack.client.history(room(ch));
    // The mention itself is not part of what the room remembers.
    expect(messages[0]).toMatchObject({ role: "user", userId: h.fake.alice.id, text: "SAY: Checking <run>echo channel-mention</run>" });
  });

  it("keeps the typing indicator on while the Worker works, and stops it with the answer", async () => {
    const ch = h.fake.addChannel(h.guildId, "long-turn");
    const typings = () => h.fake.calls.filter((c) => c.path === `/channels/${ch}/typing`).length;
    const [answer] = await mentionAnswer(h, h.fake.message(ch, "SLOW:2000 SAY: took a while", { mention: true }));
    expect(answer.content).toContain("took a while");
    // Stopping the indicator waits for a typing request in flight, so none lands after the reply.
    const settled = typings();
    // One at once, then one per 300 ms for 2 s (about 7); at least one renewal even when a
    // loaded machine's timers drop most of them.
    expect(settled).toBeGreaterThanOrEqual(2);
    // Barrier: a later answer that takes longer than two renewals; a renewal left running would have landed by its end.
    const [later] = await mentionAnswer(h, h.fake.message(h.fake.addChannel(h.guildId, "barrier"), "SLOW:700 SAY: barrier", { mention: true }));
    expect(later.content).toContain("barrier");
    expect(typings()).toBe(settled);
  });

  it("a mention in a thread reaches the thread's room and is answered in the thread", async () => {
    const ch = h.fake.addChannel(h.guildId, "with-thread");
    const th = h.fake.addThread(ch, "topic");
    const msg = h.fake.message(th, "SAY: thread-answer-marker", { mention: true });
    const [answer] = await mentionAnswer(h, msg);
    expect(answer.channel_id).toBe(th);
    expect(answer.message_reference).toMatchObject({ message_id: msg.id });
    expect(answer.content).toContain("thread-answer-marker");
    expect((await stack.client.history(room(ch, th))).messages).toHaveLength(2);
    expect((await stack.client.history(room(ch))).messages).toEqual([]);
  });

  it("a long answer continues after the reply, fences intact, with long output as a file", async () => {
    const ch = h.fake.addChannel(h.guildId, "long");
    const code = Array.from({ length: 80 }, (_, i) => `print("row ${i} ${"y".repeat(25)}")`).join("\n");
    const msg = h.fake.message(ch, `SAY: Script:\n\`\`\`python\n${code}\n\`\`\`\nRunning it: <run>seq 1 3000</run>`, { mention: true });
    const answers = await mentionAnswer(h, msg);
    expect(answers.length).toBeGreaterThanOrEqual(2);
    expect(answers[0].message_reference).toMatchObject({ message_id: msg.id });
    for (const a of answers) {
      expect(a.content.length).toBeLessThanOrEqual(2000);
      expect(fencesBalanced(a.content)).toBe(true);
    }
    const all = answers.map((a) => a.content).join("\n");
    for (let i = 0; i < 80; i++) expect(all).toContain(`print("row ${i} `);
    expect(answers[answers.length - 1].attachments).toEqual([expect.objectContaining({ filename: "output.txt" })]);
  });

  it("secrets in output are redacted, including the bot's own Discord token", async () => {
    const ch = h.fake.addChannel(h.guildId, "secrets");
    const msg = h.fake.message(ch, `SAY: Env <run>echo GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789; echo ${h.fake.token}</run>`, { mention: true });
    const [answer] = await mentionAnswer(h, msg);
    expect(answer.content).toContain("GITHUB_TOKEN=[redacted]");
    expect(answer.content).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    expect(answer.content).not.toContain(h.fake.token);
  });

  it("ignores its own messages, other bots' messages and messages without a mention", async () => {
    const ch = h.fake.addChannel(h.guildId, "bots");
    const otherBot = user(snowflake(), "OtherBot", true);
    const before = h.workerRequests.length;
    const fromBot = h.fake.message(ch, "SAY: from-other-bot", { mention: true, from: otherBot });
    const fromSelf = h.fake.message(ch, "SAY: from-myself", { mention: true, from: h.fake.botUser });
    const plain = h.fake.message(ch, "SAY: no-mention-here");
    const human = h.fake.message(ch, "SAY: human-marker", { mention: true });
    const [answer] = await mentionAnswer(h, human);
    expect(answer.message_reference).toMatchObject({ message_id: human.id });
    // Only the human's message reached the Worker; nothing replied to the others.
    expect(h.workerRequests.slice(before).filter((r) => r.path.endsWith("/message"))).toHaveLength(1);
    const replies = h.fake.messagesIn(ch).filter((m) => m.author.id === h.fake.botUser.id && m.id !== fromSelf.id);
    expect(replies.map((m) => (m.message_reference as { message_id: string }).message_id)).toEqual([human.id]);
    for (const marker of ["from-other-bot", "from-myself", "no-mention-here"]) expect(modelCallsFor(stack, marker)).toBe(0);
    expect([fromBot.id, fromSelf.id, plain.id]).not.toContain(human.id);
  });

  it("a mention of Duet's own managed role is a mention of Duet; another role's mention is not", async () => {
    const ch = h.fake.addChannel(h.guildId, "role-mention");
    const duetRole = h.fake.botRoleOf(h.guildId);
    const otherRole = h.fake.addRole(h.guildId, "Helpers");
    const other = h.fake.message(ch, `<@&${otherRole}> SAY: other-role-marker`, { fields: { mention_roles: [otherRole] } });
    const msg = h.fake.message(ch, `<@&${duetRole}> SAY: role-mention-marker`, { fields: { mention_roles: [duetRole] } });
    const [answer, ...more] = await mentionAnswer(h, msg);
    expect(more).toEqual([]);
    expect(answer.message_reference).toMatchObject({ message_id: msg.id });
    expect(answer.content).toContain("role-mention-marker");
    // The role's mention is not part of the question; the other role's message (read first) reached no one.
    expect(modelCallsFor(stack, "role-mention-marker")).toBe(1);
    expect(modelCallsFor(stack, `<@&${duetRole}>`)).toBe(0);
    expect(modelCallsFor(stack, "other-role-marker")).toBe(0);
    expect(h.fake.messagesIn(ch).filter((m) => (m.message_reference as { message_id?: string } | undefined)?.message_id === other.id)).toEqual([]);
  });

  it("a mention with nothing else asks for a question without calling the Worker", async () => {
    const ch = h.fake.addChannel(h.guildId, "empty");
    const before = h.workerRequests.length;
    const msg = h.fake.message(ch, "  ", { mention: true });
    const [answer] = await mentionAnswer(h, msg);
    expect(answer.content).toContain(EMPTY_MENTION_HINT);
    expect(h.workerRequests.slice(before)).toEqual([]);
  });

  it("a direct message gets a short answer saying Duet works in servers", async () => {
    const before = h.workerRequests.length;
    const dm = h.fake.directMessage("hello there");
    const [answer] = await mentionAnswer(h, dm);
    expect(answer.content).toContain("Duet works in servers");
    expect(h.workerRequests.slice(before)).toEqual([]);
  });

  it("a redelivered message reaches the model once", async () => {
    const ch = h.fake.addChannel(h.guildId, "redelivered");
    const msg = h.fake.message(ch, "SAY: redelivery-marker <run>echo redelivered</run>", { mention: true });
    await mentionAnswer(h, msg);
    h.fake.gateway.dispatch("MESSAGE_CREATE", { ...msg, guild_id: h.guildId });
    const next = h.fake.message(ch, "SAY: after-redelivery", { mention: true });
    await mentionAnswer(h, next);
    expect(modelCallsFor(stack, "redelivery-marker")).toBe(1);
    expect(stack.executor!.calls.filter((c) => c.command === "echo redelivered")).toHaveLength(1);
    // And the person sees one answer, not the Worker's replay posted a second time.
    const replies = h.fake.messagesIn(ch).filter(
      (m) => m.author.id === h.fake.botUser.id && (m.message_reference as { message_id?: string } | undefined)?.message_id === msg.id,
    );
    expect(replies).toHaveLength(1);
  });

  it("says hello once in the system channel of a server it is added to; a server without one gets nothing", async () => {
    const { guildId, systemChannelId } = h.fake.joinGuild("new server", { systemChannel: "general" });
    await h.fake.waitForCall((c) => c.method === "POST" && c.path === `/channels/${systemChannelId}/messages`, 10_000, "the welcome");
    const [hello, ...more] = h.fake.messagesIn(systemChannelId!).filter((m) => m.author?.id === h.fake.botUser.id);
    expect(more).toEqual([]);
    expect(hello.content).toContain("Hi, I'm Duet");
    expect(hello.content).toContain("/duet help");

    const posts = () => h.fake.calls.filter((c) => c.method === "POST" && /^\/channels\/\d+\/messages$/.test(c.path)).map((c) => c.path);
    const before = posts().length;
    h.fake.joinGuild("no system channel");
    // The barrier: a server joined afterwards, whose welcome comes after anything the first one caused.
    const barrier = h.fake.joinGuild("barrier", { systemChannel: "general" });
    await h.fake.waitForCall((c) => c.method === "POST" && c.path === `/channels/${barrier.systemChannelId}/messages`, 10_000, "the barrier's welcome");
    expect(posts().slice(before)).toEqual([`/channels/${barrier.systemChannelId}/messages`]);
    expect(h.bot.client.guilds.cache.has(guildId)).toBe(true);
  });
});
