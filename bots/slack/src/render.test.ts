import { type DuetMessage, type MessageResponse, redactReply, type RunResult } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { helpText, MAX_BLOCKS, renderAnswer, renderExec, renderHistory, renderReply } from "./render.ts";

const run = (cmd: string, stdout: string, extra: Partial<RunResult> = {}): RunResult => ({
  cmd,
  exitCode: 0,
  stdout,
  stderr: "",
  truncated: false,
  durationMs: 12,
  ...extra,
});

const answer = (reply: string, runs: RunResult[] = [], extra: Partial<MessageResponse> = {}): MessageResponse => ({ reply, messages: [], runs, ...extra });

type Shown = { text?: { text: string }; elements?: { text: string }[] };
/** What a person reads in each block. */
const texts = (blocks: unknown[]) =>
  (blocks as Shown[]).map((b) => b.text?.text ?? b.elements?.map((e) => e.text).join(" ") ?? "");

const balanced = (s: string) => (s.match(/```/g) ?? []).length % 2 === 0;

describe("renderAnswer", () => {
  it("puts the explanation first, then each command with $ cmd, exit code and output in a code block", () => {
    const r = renderAnswer(answer("I'll **list** files\n\nOutput (ls):\na", [run("ls", "a\nb\n"), run("false", "", { exitCode: 1, stderr: "boom" })]));
    expect(texts(r.blocks)).toEqual([
      "I'll *list* files",
      ":white_check_mark: `$ ls`  ·  exit 0 · 12 ms\n```\na\nb\n```",
      ":x: `$ false`  ·  exit 1 · 12 ms\n```\nboom\n```",
    ]);
    expect(r.text).toBe("I'll list files");
    expect(r.uploads).toEqual([]);
  });

  it("escapes output so it cannot ping the channel or break the code block", () => {
    const r = renderAnswer(answer("", [run("cat notes", "<!channel> a & b\n```\nend")]));
    const [block] = texts(r.blocks);
    expect(block).toContain("&lt;!channel&gt; a &amp; b");
    expect(block).not.toContain("<!channel>");
    expect(block.match(/```/g)).toHaveLength(2);
  });

  it("shows an answer the flow redacted with no secret in commands, output and explanation, the bot's own tokens included", () => {
    const res = answer("The key is sk-abcdefghijklmnopqrstuvwxyz1234", [run("echo $TOKEN", "xoxb-123456789012-abcdefghijkl\nmy-own-worker-token")]);
    const r = renderReply(redactReply({ kind: "answer", answer: res, question: "q", user: "U1" }, ["my-own-worker-token"]), { place: "thread" });
    const all = texts(r.blocks).join("\n") + r.text + r.uploads.map((u) => u.content).join("");
    expect(all).not.toMatch(/sk-abcdef|xoxb-123456789012-abc|my-own-worker-token/);
    expect(all).toContain("[redacted]");
  });

  it("shows long output as head and tail within 3,000 characters and uploads all of it", () => {
    const output = Array.from({ length: 4000 }, (_, i) => `line <${i}> & more`).join("\n");
    const r = renderAnswer(answer("Big", [run("gen", output)]));
    const [, block] = texts(r.blocks);
    expect(block.length).toBeLessThanOrEqual(3000);
    expect(balanced(block)).toBe(true);
    expect(block).toContain("line &lt;0&gt; &amp; more");
    expect(block).toContain("line &lt;3999&gt; &amp; more\n```");
    expect(block).toMatch(/… [\d,]+ lines \([\d,]+ characters\) omitted; full output in duet-output-1\.txt …/);
    expect(r.uploads).toEqual([{ filename: "duet-output-1.txt", title: "$ gen", content: `$ gen\n${output}\n` }]);
  });

  it("splits a long explanation into sections without breaking a code fence", () => {
    const code = Array.from({ length: 400 }, (_, i) => `const v${i} = ${i};`).join("\n");
    const r = renderAnswer(answer(`Here:\n\`\`\`ts\n${code}\n\`\`\`\nDone.`));
    const sections = texts(r.blocks);
    expect(sections.length).toBeGreaterThan(2);
    for (const s of sections) {
      expect(s.length).toBeLessThanOrEqual(3000);
      expect(balanced(s)).toBe(true);
    }
    expect(sections.join("\n")).toContain("const v399 = 399;");
  });

  it("keeps within 50 blocks and hands over an answer too long for one message as a file", () => {
    const words = "word ".repeat(200_000 / 5);
    const r = renderAnswer(answer(words, [run("ls", "x")]), { reserveBlocks: 1 });
    expect(r.blocks.length).toBeLessThanOrEqual(MAX_BLOCKS - 1);
    expect(texts(r.blocks).join("\n")).toContain("duet-answer.md");
    expect(texts(r.blocks).at(-1)).toContain("`$ ls`");
    expect(r.uploads.map((u) => u.filename)).toEqual(["duet-answer.md"]);
  });

  it("lists commands the Worker skipped", () => {
    const r = renderAnswer(answer("Many", [run("a", "1")], { skipped: ["rm -rf `x`", "b"] }));
    expect(texts(r.blocks).at(-1)).toBe("Not run (limit of 1 commands per reply): `rm -rf 'x'`, `b`");
  });

  it("says something even when the model said nothing", () => {
    expect(texts(renderAnswer(answer("")).blocks)).toEqual(["_Duet had nothing to say._"]);
  });
});

describe("renderExec", () => {
  it("renders a direct run like a model's command", () => {
    const r = renderExec("pwd", { stdout: "/work\n", stderr: "", exitCode: 0, success: true, truncated: false, durationMs: 3 });
    expect(texts(r.blocks)).toEqual([":white_check_mark: `$ pwd`  ·  exit 0 · 3 ms\n```\n/work\n```"]);
  });
});

describe("renderHistory", () => {
  it("shows the last 10 messages with who said them", () => {
    const messages: DuetMessage[] = Array.from({ length: 25 }, (_, i) => ({
      role: i % 2 ? "agent" : "user",
      ...(i % 2 ? {} : { userId: "U0ALICE" }),
      text: `message ${i} <b>`,
      ts: i,
    }));
    const [text] = texts(renderHistory(messages).blocks);
    expect(text.split("\n")[0]).toBe("*Last 10 of 25 messages in this room:*");
    expect(text).toContain("*Duet*: message 15 &lt;b&gt;");
    expect(text).toContain("<@U0ALICE>: message 24 &lt;b&gt;");
    expect(text).not.toContain("message 14 ");
  });

  it("says when there is nothing yet", () => {
    expect(texts(renderHistory([]).blocks)[0]).toMatch(/no history yet/);
  });
});

describe("the help Slack shows", () => {
  it("names each command as it is typed in Slack, in mrkdwn (no **bold**, no angle brackets)", () => {
    const help = helpText();
    for (const typed of ["`/duet ask` _question_", "`/duet run` _command_", "`/duet history`", "`/duet reset`", "`/duet help`"]) expect(help).toContain(`• ${typed}: `);
    expect(help).toContain("direct message");
    expect(help).not.toMatch(/\*\*|<|>|prompt:/);
  });

  it("puts what was wrong above it", () => {
    const r = renderReply({ kind: "help", problem: "Unknown command `dance`." }, { place: "slash" });
    expect(r.blocks.map((b) => JSON.stringify(b)).join("")).toMatch(/Unknown command `dance`\..*\/duet ask/);
  });
});
