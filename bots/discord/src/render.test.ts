import { describe, expect, it } from "vitest";
import { describeNetwork, type InfoResponse, type MessageResponse, redactReply, type RunResult } from "@duet/shared";
import { helpText, renderExec, renderHistory, renderMessage, renderReply, MESSAGE_MAX_CHARS } from "./render.ts";

const run = (over: Partial<RunResult> = {}): RunResult => ({ cmd: "ls", exitCode: 0, stdout: "a\nb\n", stderr: "", truncated: false, durationMs: 12, ...over });
const answer = (reply: string, runs: RunResult[] = [], skipped?: string[]): MessageResponse => ({ reply, messages: [], runs, skipped });
const fences = (s: string) => (s.match(/```/g) ?? []).length;

describe("renderMessage", () => {
  it("names the host of a link in the model's text beside its label, without a preview, and leaves code alone", () => {
    const [msg] = renderMessage(answer("[Click here](https://evil.example/login) to verify. `[a](https://x.io)`\n```\n[b](https://y.io)\n```"));
    expect(msg.content).toBe("[Click here (evil.example)](<https://evil.example/login>) to verify. `[a](https://x.io)`\n```\n[b](https://y.io)\n```");
  });

  it("shows each command in a code block with its status", () => {
    const [msg, ...rest] = renderMessage(answer("Listing.\n\nOutput (ls):\na\nb", [run()]));
    expect(rest).toEqual([]);
    expect(msg.content).toBe("Listing.\n\n✅ **exit 0 · 12 ms**\n```\n$ ls\na\nb\n```");
    expect(msg.files).toEqual([]);
  });

  it("marks failures and shows stderr after stdout", () => {
    const [msg] = renderMessage(answer("x", [run({ cmd: "make", exitCode: 2, stdout: "building\n", stderr: "error: missing\n" })]));
    expect(msg.content).toContain("❌ **exit 2");
    expect(msg.content).toContain("$ make\nbuilding\n--- stderr ---\nerror: missing\n```");
  });

  it("puts long output in a file and keeps its head and tail inline", () => {
    const stdout = Array.from({ length: 3000 }, (_, i) => `line ${i}`).join("\n");
    const out = renderMessage(answer("Big.", [run({ cmd: "gen", stdout })]));
    const text = out.map((m) => m.content).join("\n");
    expect(text).toContain("line 0\n");
    expect(text).toContain("line 2999\n```");
    expect(text).toMatch(/omitted; full output in output\.txt/);
    const file = out[out.length - 1].files[0] as { name: string; attachment: Buffer };
    expect(file.name).toBe("output.txt");
    expect(file.attachment.toString()).toBe(`$ gen\n${stdout}\n`);
  });

  it("names files per command when there are several", () => {
    const big = "z".repeat(5000);
    const out = renderMessage(answer("Two.", [run({ cmd: "a", stdout: big }), run({ cmd: "b", stdout: big })]));
    expect(out.flatMap((m) => m.files.map((f) => (f as { name: string }).name))).toEqual(["output-1.txt", "output-2.txt"]);
  });

  it("splits text over 2,000 characters with every code block closed in its own message", () => {
    const code = Array.from({ length: 400 }, (_, i) => `x${i} = ${i}`).join("\n");
    const out = renderMessage(answer(`Code:\n\`\`\`py\n${code}\n\`\`\`\nEnd.`));
    expect(out.length).toBeGreaterThan(1);
    for (const m of out) {
      expect(m.content.length).toBeLessThanOrEqual(MESSAGE_MAX_CHARS);
      expect(fences(m.content) % 2).toBe(0);
    }
    expect(out[1].content.startsWith("```py\n")).toBe(true);
  });

  it("shows an answer the flow redacted with no secret, the bot's own tokens included", () => {
    const res = answer("Env.", [run({ cmd: "env", stdout: "API_KEY=abc123secretvalue\nDISCORD=my-bot-token-value\n" })]);
    const [msg] = renderReply(redactReply({ kind: "answer", answer: res, question: "q", user: "1" }, ["my-bot-token-value"]));
    expect(msg.content).toContain("API_KEY=[redacted]");
    expect(msg.content).not.toContain("abc123secretvalue");
    expect(msg.content).not.toContain("my-bot-token-value");
  });

  it("lists commands the Worker skipped, and says something when there is nothing", () => {
    expect(renderMessage(answer("Many.", [], ["rm -rf /tmp/x"]))[0].content).toContain("Not run (limit of 0 commands per reply): `rm -rf /tmp/x`");
    expect(renderMessage(answer(""))[0].content).toBe("(Duet had nothing to say.)");
  });

  it("shows an unknown outcome and an empty output plainly", () => {
    const [msg] = renderMessage(answer("", [run({ exitCode: null, stdout: "" })]));
    expect(msg.content).toContain("outcome unknown");
    expect(msg.content).toContain("$ ls\n(no output)");
  });
});

describe("renderExec", () => {
  it("renders a direct command the same way", () => {
    const [msg] = renderExec("false", { stdout: "", stderr: "", exitCode: 1, success: false, truncated: false, durationMs: 3 });
    expect(msg.content).toBe("❌ **exit 1 · 3 ms**\n```\n$ false\n(no output)\n```");
  });
});

describe("renderHistory", () => {
  it("says when the room is empty", () => {
    expect(renderHistory([])[0].content).toContain("no history yet");
  });

  it("shows the last ten messages, shortened, with who and when", () => {
    const messages = Array.from({ length: 14 }, (_, i) => ({
      role: (i % 2 ? "agent" : "user") as "agent" | "user",
      userId: i % 2 ? undefined : "123456789012345678",
      text: `message ${i} ${"w".repeat(i === 13 ? 500 : 3)}\n\`\`\`\ncode\n\`\`\``,
      ts: 1_700_000_000_000 + i * 1000,
    }));
    const [msg, ...rest] = renderHistory(messages);
    expect(rest).toEqual([]);
    expect(msg.content.startsWith("Last 10 of 14 messages in this room:")).toBe(true);
    expect(msg.content).not.toContain("message 3 ");
    expect(msg.content).toContain("message 4 ");
    expect(msg.content).toContain("<@123456789012345678> <t:1700000004:R>");
    expect(msg.content).toContain("**Duet** <t:1700000013:R>");
    expect(msg.content).toMatch(/w{100,}…/);
    // Quoted code must not open a real code block.
    expect(fences(msg.content)).toBe(0);
  });
});

describe("the help Discord shows", () => {
  it("names each command with the options Discord asks for, and no DMs (Duet works in servers)", () => {
    // As a room shows it: with its model, the default network and a run policy.
    const help = helpText({ model: "workers-ai:@cf/meta/llama-3.3-70b-instruct-fp8-fast", network: describeNetwork({ sandbox: { provider: "local", network: "none", allowedHosts: [], deniedHosts: [] } } as InfoResponse), runPolicy: "approve" });
    for (const typed of ["`/duet ask prompt:`_text_", "`/duet tools what:`_add|remove|room on|off_ _name_", "`/duet run command:`_shell_", "`/duet history`", "`/duet reset`", "`/duet help`", "`@Duet`"]) expect(help).toContain(`• ${typed}`);
    expect(help.length).toBeLessThanOrEqual(MESSAGE_MAX_CHARS);
    expect(help).not.toMatch(/direct message/i);
  });
});
