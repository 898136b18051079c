import type { MessageResponse, RunResult } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { explanationOf } from "@duet/shared";
import { chatHelp, makeStyle, renderAnswer, renderExec, renderHistory, renderReset, renderRun, TERMINAL_OUTPUT_CHARS, TERMINAL_OUTPUT_LINES, useColor } from "./render.ts";

const ESC = "\x1b[";
const plain = makeStyle(false);
const coloured = makeStyle(true);

const run = (over: Partial<RunResult> = {}): RunResult => ({
  cmd: "echo hi",
  exitCode: 0,
  stdout: "hi\n",
  stderr: "",
  truncated: false,
  durationMs: 12,
  ...over,
});

describe("useColor", () => {
  it("colours only a TTY, and never with NO_COLOR set", () => {
    expect(useColor({ isTTY: true }, {})).toBe(true);
    expect(useColor({ isTTY: false }, {})).toBe(false);
    expect(useColor({}, {})).toBe(false);
    expect(useColor({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
  });
});

describe("renderRun", () => {
  it("shows $ cmd, the status line and the output under a bar, with no escape codes when plain", () => {
    const text = renderRun(run({ stdout: "one\ntwo\n" }), plain);
    expect(text).toBe(["$ echo hi", "  exit 0 · 12 ms", "  │ one", "  │ two"].join("\n"));
    expect(text).not.toContain(ESC);
  });

  it("uses colour when asked: green for success, red for failure", () => {
    expect(renderRun(run(), coloured)).toContain(`${ESC}32mexit 0 · 12 ms`);
    const failed = renderRun(run({ exitCode: 2, stdout: "", stderr: "ls: nope\n" }), coloured);
    expect(failed).toContain(`${ESC}31mexit 2 · 12 ms`);
    expect(failed).toContain("ls: nope");
  });

  it("says so when there is no output, and shows stdout then stderr", () => {
    expect(renderRun(run({ stdout: "" }), plain)).toContain("  (no output)");
    expect(renderRun(run({ stdout: "out\n", stderr: "warn\n" }), plain)).toContain("  │ out\n  │ --- stderr ---\n  │ warn");
  });

  it("keeps about a screenful of long output, the start and the end, and says what it cut and why", () => {
    const lines = Array.from({ length: 5_000 }, (_, i) => `line ${i}`).join("\n");
    const text = renderRun(run({ stdout: lines }), plain);
    // The command's line, its status, then the output's lines.
    expect(text.split("\n").length).toBe(2 + TERMINAL_OUTPUT_LINES);
    expect(text).toContain("│ line 0\n");
    expect(text).toContain("│ line 4999");
    expect(text).toMatch(/│ … 4,961 lines \([\d,]+ characters\) omitted; the CLI shows about 40 lines of a command's output …\n/);
  });

  it("says under output the sandbox cut that its last line shown is not the command's last", () => {
    const kept = Array.from({ length: 3_000 }, (_, i) => `line ${i}`).join("\n");
    const text = renderRun(run({ stdout: kept, truncated: true }), plain);
    expect(text.split("\n")[1]).toBe("  exit 0 · 12 ms · output truncated");
    expect(text.split("\n").at(-2)).toBe("  │ line 2999");
    expect(text.split("\n").at(-1)).toBe("  (the command printed more than was kept: this ends where the kept part ends, not where its output did)");
    expect(renderRun(run({ stdout: "short\n" }), plain)).not.toContain("more than was kept");
  });

  it("cuts one very long line by characters", () => {
    const text = renderRun(run({ stdout: "y".repeat(60_000) }), plain);
    expect(text.length).toBeLessThan(TERMINAL_OUTPUT_CHARS + 200);
    expect(text).toContain("omitted; the CLI shows about 40 lines");
  });

  it("makes terminal escape sequences in output inert", () => {
    const text = renderRun(run({ stdout: "\x1b[2Jgone\n", cmd: "cat .env" }), plain);
    expect(text).not.toContain("\x1b");
    expect(text).toContain("gone");
  });

  it("names a failure without an exit code", () => {
    expect(renderRun(run({ exitCode: null, stdout: "", error: "sandbox unreachable" }), plain)).toContain("  failed: sandbox unreachable");
  });
});

describe("renderAnswer", () => {
  const answer = (over: Partial<MessageResponse>): MessageResponse => ({ reply: "", messages: [], runs: [], ...over });

  it("prints the explanation once, then each run, without the reply's Output sections", () => {
    const res = answer({
      reply: "Let me look.\n\nOutput (uname -s):\nLinux",
      runs: [run({ cmd: "uname -s", stdout: "Linux\n" })],
    });
    expect(explanationOf(res)).toBe("Let me look.");
    expect(renderAnswer(res, plain)).toBe(["Let me look.", "", "$ uname -s", "  exit 0 · 12 ms", "  │ Linux"].join("\n"));
  });

  it("keeps an answer without commands whole, and lists commands over the limit", () => {
    expect(renderAnswer(answer({ reply: "Use du -sh." }), plain)).toBe("Use du -sh.");
    const res = answer({
      reply: "Two.\n\nOutput (a):\nx\n\nNot run (limit of 1 commands per reply): `b`",
      runs: [run({ cmd: "a", stdout: "x" })],
      skipped: ["b"],
    });
    const text = renderAnswer(res, plain);
    expect(text.startsWith("Two.\n\n$ a")).toBe(true);
    expect(text).toContain("Not run (limit of 1 commands per reply): b");
  });
});

describe("renderExec, renderHistory, renderReset", () => {
  it("renders a direct run like a run in an answer", () => {
    const text = renderExec("echo hi", { stdout: "hi\n", stderr: "", exitCode: 0, success: true, truncated: false, durationMs: 3 }, plain);
    expect(text).toBe("$ echo hi\n  exit 0 · 3 ms\n  │ hi");
  });

  it("shows who said what, in order, and an empty room plainly", () => {
    const text = renderHistory("demo", [
      { role: "user", userId: "cli:alice", text: "list files", ts: Date.UTC(2026, 0, 2, 3, 4, 5) },
      { role: "agent", text: "Here:\nOutput (ls):\na.txt", ts: Date.UTC(2026, 0, 2, 3, 4, 6) },
    ], plain);
    const [first, second] = text.split("\n");
    expect(first).toMatch(/^2026-01-0\d \d\d:\d\d:05 cli:alice: list files$/);
    expect(second).toMatch(/^2026-01-0\d \d\d:\d\d:06 duet: Here:$/);
    expect(text).toContain("\n    Output (ls):\n    a.txt");
    expect(renderHistory("demo", [], plain)).toBe("(no messages in demo yet)");
  });

  it("marks a question a schedule asked as the schedule's, not as typed by the person who set it", () => {
    const text = renderHistory("demo", [
      { role: "user", userId: "cli:alice", text: "check disk", ts: Date.UTC(2026, 0, 2, 3, 4, 5), schedule: "3f9a1c2b" },
      { role: "agent", text: "Fine.", ts: Date.UTC(2026, 0, 2, 3, 4, 6) },
    ], plain);
    expect(text.split("\n")[0]).toMatch(/^2026-01-0\d \d\d:\d\d:05 schedule 3f9a1c2b: check disk$/);
  });

  it("reports a reset, and a partial one", () => {
    expect(renderReset("demo", "cli:me", [], plain)).toBe("Room demo: cli:me reset Duet here: the conversation history is cleared and the sandbox is removed.");
    expect(renderReset("demo", "cli:me", ["sandbox: timeout"], plain)).toBe(
      "Room demo: cli:me reset Duet here: the conversation history is cleared and the sandbox is removed. Some parts could not be removed (sandbox: timeout); `duet reset` again retries them.",
    );
  });
});

describe("the help duet chat shows", () => {
  it("names each command as it is typed at the chat prompt", () => {
    const lines = chatHelp().split("\n");
    for (const typed of ["TEXT", "!CMD", "/history", "/reset", "/help", "/quit"]) expect(lines.some((l) => l.trimStart().startsWith(`${typed} `))).toBe(true);
    expect(chatHelp()).not.toContain("/duet");
    // A terminal has one reader, and a schedule's answers land in the room's history, not a channel.
    expect(chatHelp()).not.toContain("only you see it");
    expect(chatHelp()).toContain("each answer is kept in the room's history");
  });
});
