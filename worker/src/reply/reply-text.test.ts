import { RUN_OUTPUT_MAX_BYTES, type RunResult } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { buildReply } from "./reply-text.ts";

const run = (cmd: string, over: Partial<RunResult> = {}): RunResult => ({ cmd, exitCode: 0, stdout: "", stderr: "", truncated: false, durationMs: 5, ...over });

describe("buildReply", () => {
  it("lists each command waiting for approval, and counts them against the per-reply limit", () => {
    expect(buildReply("Cleaning up.", [], ["rm c"], ["rm a", "rm b"])).toBe(
      "Cleaning up.\n\nWaiting for approval: rm a\n\nWaiting for approval: rm b\n\nNot run (limit of 2 commands per reply): `rm c`",
    );
  });

  it("heads a failing command with its exit code and keeps its stderr beside its stdout", () => {
    const text = buildReply("Building.", [run("make", { exitCode: 2, stdout: "cc main.c\n", stderr: "main.c:3: error: x undeclared\n" })], []);
    expect(text).toBe("Building.\n\nFailed with exit code 2 (make):\ncc main.c\n--- stderr ---\nmain.c:3: error: x undeclared");
    // Only stderr: shown, not dropped for an empty stdout's "[no output]".
    expect(buildReply("", [run("ls x", { exitCode: 2, stderr: "ls: cannot access 'x'\n" })], [])).toBe("Failed with exit code 2 (ls x):\nls: cannot access 'x'");
    expect(buildReply("", [run("true")], [])).toBe("Output (true):\n[no output]");
  });

  it("cuts long output at whole lines around a marker saying how much was left out, keeping the end (where errors are)", () => {
    const lines = Array.from({ length: 200 }, (_, i) => `line ${String(i + 1).padStart(3, "0")} of the build log`);
    const text = buildReply("", [run("build", { exitCode: 1, stdout: lines.join("\n"), stderr: "FATAL: disk full\n" })], []);
    const body = text.split("\n").slice(1);
    expect(body.join("\n").length).toBeLessThanOrEqual(500);
    expect(body[0]).toBe("line 001 of the build log");
    expect(body.at(-1)).toBe("FATAL: disk full");
    const marker = body.find((l) => l.startsWith("…"));
    expect(marker).toMatch(/^… \d+ lines \([\d,]+ characters\) omitted …$/);
    // No line is cut in the middle: each is a whole line of the output or the marker.
    for (const l of body) expect([...lines, "--- stderr ---", "FATAL: disk full", marker]).toContain(l);
  });

  it("says so when the output was cut before it ended: its last line shown is not the command's last", () => {
    const kept = "x".repeat(RUN_OUTPUT_MAX_BYTES - 1) + "\n";
    const text = buildReply("", [run("yes x", { stdout: kept, truncated: true })], []);
    expect(text.split("\n").at(-1)).toBe("[the command printed more than was kept: this is the end of what was kept, not of its output]");
    expect(text.length).toBeLessThan(700);
  });
});
