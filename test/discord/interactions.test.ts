import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { fencesBalanced, interactionAnswer, modelCallsFor, type DiscordHarness, startDiscordSetup } from "./harness.ts";

/** `/duet` slash commands through the real discord.js client, the fake Discord and the real Worker. */

const EPHEMERAL = 64;

describe("Discord /duet interactions", () => {
  let stack: Stack;
  let h: DiscordHarness;
  /** Added to the fake Discord's clock, to let interaction tokens expire without waiting. */
  let skew = 0;
  startedForTests(() => startDiscordSetup({ fake: { now: () => Date.now() + skew } }), (s) => ({ stack, h } = s));

  const room = (channel: string, thread?: string) => `discord-${h.guildId}-${channel}${thread ? `-${thread}` : ""}`;

  it("/duet ask defers at once, and the edited reply shows the command and its output", async () => {
    const ch = h.fake.addChannel(h.guildId, "ask");
    // The model takes longer than Discord's 3 s: only a deferral in time keeps the interaction alive.
    const rec = h.fake.interaction(ch, { subcommand: "ask", options: { prompt: "SLOW:3500 SAY: Listing now <run>echo hello-discord</run>" } });
    const { messages, text } = await interactionAnswer(h, rec);
    const callback = h.fake.calls.find((c) => c.path === `/interactions/${rec.id}/${rec.token}/callback`)!;
    expect(callback).toMatchObject({ status: 204, body: { type: 5 } });
    expect(rec.ephemeral).toBe(false);
    expect(messages).toHaveLength(1);
    expect(text).toContain("Listing now");
    expect(text).toContain("$ echo hello-discord");
    expect(text).toMatch(/exit 0/);
    expect(text).toMatch(/```\n\$ echo hello-discord\nhello-discord\n```/);
    expect(text).not.toContain("<run>");
    const { messages: history } = await stack.client.history(room(ch));
    expect(history.map((m) => m.role)).toEqual(["user", "agent"]);
    expect(history[0].userId).toBe(h.fake.alice.id);
  });

  it("long command output arrives as a file, with its head and tail inline", async () => {
    const ch = h.fake.addChannel(h.guildId, "long-output");
    const rec = h.fake.interaction(ch, { subcommand: "ask", options: { prompt: "SAY: Counting <run>seq 1 10000</run>" } });
    const { messages, text } = await interactionAnswer(h, rec);
    expect(text).toMatch(/lines \([\d,]+ characters\) omitted; full output in output\.txt/);
    expect(text).toMatch(/\n1\n2\n/);
    expect(text).toContain("\n10000\n```");
    const last = messages[messages.length - 1];
    expect(last.attachments).toEqual([expect.objectContaining({ filename: "output.txt" })]);
    const upload = h.fake.calls.find((c) => c.path.includes(rec.token) && c.files.length > 0)!;
    expect(upload.files[0].text.startsWith("$ seq 1 10000\n1\n2\n3\n")).toBe(true);
    expect(upload.files[0].text).toContain("\n5000\n");
    expect(upload.files[0].text.trimEnd().endsWith("\n10000")).toBe(true);
    for (const m of messages) expect(m.content.length).toBeLessThanOrEqual(2000);
  });

  it("an answer over 2,000 characters is split into follow-ups without breaking code fences", async () => {
    const ch = h.fake.addChannel(h.guildId, "long-answer");
    const code = Array.from({ length: 120 }, (_, i) => `const line${i} = "${"x".repeat(30)}";`).join("\n");
    const rec = h.fake.interaction(ch, { subcommand: "ask", options: { prompt: `SAY: Here is the module:\n\`\`\`ts\n${code}\n\`\`\`\nThat is all.` } });
    const { messages, text } = await interactionAnswer(h, rec);
    expect(messages.length).toBeGreaterThanOrEqual(3);
    expect(rec.followups.length).toBe(messages.length - 1);
    for (const m of messages) {
      expect(m.content.length).toBeLessThanOrEqual(2000);
      expect(fencesBalanced(m.content)).toBe(true);
    }
    expect(messages[1].content.startsWith("```ts\n")).toBe(true);
    for (let i = 0; i < 120; i++) expect(text).toContain(`const line${i} = `);
    expect(messages[messages.length - 1].content).toContain("That is all.");
  });

  it("/duet run executes directly in the sandbox, without the model", async () => {
    const ch = h.fake.addChannel(h.guildId, "run");
    const rec = h.fake.interaction(ch, { subcommand: "run", options: { command: "echo run-direct-marker; exit 3" } });
    const { text } = await interactionAnswer(h, rec);
    expect(text).toContain("$ echo run-direct-marker; exit 3");
    expect(text).toMatch(/❌ \*\*exit 3/);
    expect(text).toContain("\nrun-direct-marker\n");
    expect(modelCallsFor(stack, "run-direct-marker")).toBe(0);
  });

  it("/duet run with long output attaches it as output.txt", async () => {
    const ch = h.fake.addChannel(h.guildId, "run-long");
    const rec = h.fake.interaction(ch, { subcommand: "run", options: { command: "seq 1 9000" } });
    const { messages } = await interactionAnswer(h, rec);
    expect(messages[messages.length - 1].attachments).toEqual([expect.objectContaining({ filename: "output.txt" })]);
    const upload = h.fake.calls.find((c) => c.path.includes(rec.token) && c.files.length > 0)!;
    expect(upload.files[0].text.trimEnd().endsWith("\n9000")).toBe(true);
  });

  it.each([
    ["ask", {}, "/duet ask prompt:"],
    ["ask", { prompt: "   " }, "/duet ask prompt:"],
    ["run", {}, "/duet run command:"],
    ["run", { command: "" }, "/duet run command:"],
  ])("/duet %s with options %j answers privately how to use it, without calling the Worker", async (subcommand, options, hint) => {
    const ch = h.fake.addChannel(h.guildId, "usage");
    const before = h.workerRequests.length;
    const rec = h.fake.interaction(ch, { subcommand, options: options as Record<string, string> });
    const { text } = await interactionAnswer(h, rec);
    expect(rec.ephemeral).toBe(true);
    expect(text).toContain(hint);
    expect(h.workerRequests.length).toBe(before);
  });

  it("/duet history shows the room's conversation to the caller only", async () => {
    const ch = h.fake.addChannel(h.guildId, "history");
    const empty = await interactionAnswer(h, h.fake.interaction(ch, { subcommand: "history" }));
    expect(empty.rec.ephemeral).toBe(true);
    expect(empty.text).toContain("no history yet");
    await interactionAnswer(h, h.fake.interaction(ch, { subcommand: "ask", options: { prompt: "SAY: history-answer-marker" } }));
    const rec = h.fake.interaction(ch, { subcommand: "history" });
    const { text } = await interactionAnswer(h, rec);
    expect(rec.ephemeral).toBe(true);
    expect(h.fake.calls.find((c) => c.path.includes(rec.id) && c.route.includes("callback"))!.body).toMatchObject({ type: 5, data: { flags: EPHEMERAL } });
    expect(text).toContain("Last 2 of 2 messages");
    expect(text).toContain(`<@${h.fake.alice.id}>`);
    expect(text).toContain("**Duet**");
    expect(text).toContain("history-answer-marker");
  });

  it("/duet reset empties the room", async () => {
    const ch = h.fake.addChannel(h.guildId, "reset");
    await interactionAnswer(h, h.fake.interaction(ch, { subcommand: "ask", options: { prompt: "SAY: before reset" } }));
    expect((await stack.client.history(room(ch))).messages).toHaveLength(2);
    const { text } = await interactionAnswer(h, h.fake.interaction(ch, { subcommand: "reset" }));
    expect(text).toContain(`<@${h.fake.alice.id}> reset Duet here: the conversation history is cleared`);
    expect((await stack.client.history(room(ch))).messages).toEqual([]);
  });

  it("/duet help lists the subcommands", async () => {
    const ch = h.fake.addChannel(h.guildId, "help");
    const { text } = await interactionAnswer(h, h.fake.interaction(ch, { subcommand: "help" }));
    for (const sub of ["ask prompt:", "run command:", "history", "reset", "@Duet"]) expect(text).toContain(sub);
  });

  it("a command in a thread uses the thread's room, recorded under its channel", async () => {
    const ch = h.fake.addChannel(h.guildId, "parent");
    const th = h.fake.addThread(ch, "a thread");
    await interactionAnswer(h, h.fake.interaction(th, { subcommand: "ask", options: { prompt: "SAY: in-thread-marker" } }));
    const { messages } = await stack.client.history(room(ch, th));
    expect(messages.map((m) => m.text)).toContain("in-thread-marker");
    expect((await stack.client.history(room(ch))).messages).toEqual([]);
  });

  it("a replayed interaction is answered once and reaches the model once", async () => {
    const ch = h.fake.addChannel(h.guildId, "replay");
    const rec = h.fake.interaction(ch, { subcommand: "ask", options: { prompt: "SAY: replay-marker <run>echo replayed-once</run>" } });
    await interactionAnswer(h, rec);
    h.fake.replayInteraction(rec);
    await h.fake.waitForCall((c) => c.path.includes(`/interactions/${rec.id}/`) && c.errorCode === 40060, 10_000, "the refused second deferral");
    // A fresh interaction after the replay proves the bot went on working (and gives the replay time to misbehave).
    await interactionAnswer(h, h.fake.interaction(ch, { subcommand: "help" }));
    expect(modelCallsFor(stack, "replay-marker")).toBe(1);
    expect(stack.executor!.calls.filter((c) => c.command === "echo replayed-once")).toHaveLength(1);
    expect(rec.followups).toHaveLength(0);
  });

  it("an answer that outlives the 15-minute interaction token is posted in the channel instead", async () => {
    const ch = h.fake.addChannel(h.guildId, "expired");
    const rec = h.fake.interaction(ch, { subcommand: "ask", options: { prompt: "SLOW:1500 SAY: late-answer-marker" } });
    await h.fake.waitForCall((c) => c.path.includes(`/interactions/${rec.id}/`) && c.status === 204);
    skew += 15 * 60_000 + 1;
    try {
      await h.waitForLog(`interaction ${rec.id} answered in the channel`);
    } finally {
      skew = 0;
    }
    expect(h.fake.calls.some((c) => c.path.includes(rec.token) && c.errorCode === 50027)).toBe(true);
    const [intro, posted] = h.fake.messagesIn(ch).filter((m) => m.author.id === h.fake.botUser.id);
    expect(intro.content).toContain(`<@${h.fake.alice.id}> here is the answer to your \`/duet ask\``);
    expect(posted.content).toContain("late-answer-marker");
  });

  it("malformed interactions get a short answer and never crash the bot", async () => {
    const ch = h.fake.addChannel(h.guildId, "malformed");
    const base = { type: 2, guild_id: h.guildId, channel_id: ch, channel: { id: ch, type: 0, guild_id: h.guildId, name: "malformed" }, member: { user: h.fake.alice, roles: [], joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0 } };
    const noSub = h.fake.rawInteraction({ ...base, data: { id: "1", name: "duet", type: 1 } });
    const unknownSub = h.fake.rawInteraction({ ...base, data: { id: "1", name: "duet", type: 1, options: [{ type: 1, name: "dance", options: [] }] } });
    const numberPrompt = h.fake.rawInteraction({ ...base, data: { id: "1", name: "duet", type: 1, options: [{ type: 1, name: "ask", options: [{ type: 4, name: "prompt", value: 42 }] }] } });
    const otherCommand = h.fake.rawInteraction({ ...base, data: { id: "1", name: "other", type: 1 } });
    const dm = h.fake.rawInteraction({ type: 2, channel_id: "1", channel: { id: "1", type: 1 }, user: h.fake.alice, data: { id: "1", name: "duet", type: 1, options: [{ type: 1, name: "help", options: [] }] } });
    expect((await interactionAnswer(h, noSub)).text).toContain("Unknown command `/duet`");
    expect((await interactionAnswer(h, unknownSub)).text).toContain("Unknown command `/duet dance`");
    expect((await interactionAnswer(h, numberPrompt)).text).toContain("/duet ask prompt:");
    expect((await interactionAnswer(h, otherCommand)).text).toContain("Unknown command `/other`");
    expect((await interactionAnswer(h, dm)).text).toContain("Duet works in servers");
    const after = await interactionAnswer(h, h.fake.interaction(ch, { subcommand: "run", options: { command: "echo still-alive" } }));
    expect(after.text).toContain("still-alive");
  });
});
