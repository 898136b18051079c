import { describe, expect, it } from "vitest";
import type { RunResult } from "../wire/schemas.ts";
import { describeRun, formatDuration } from "./run-view.ts";

const run = (over: Partial<RunResult>): RunResult => ({
  cmd: "ls",
  exitCode: 0,
  stdout: "",
  stderr: "",
  truncated: false,
  durationMs: 12,
  ...over,
});

describe("describeRun", () => {
  it("shows a successful command", () => {
    expect(describeRun(run({ stdout: "a.txt\nb.txt\n" }))).toEqual({
      command: "$ ls",
      status: "exit 0 · 12 ms",
      output: "a.txt\nb.txt",
      ok: true,
    });
  });

  it("shows a failing command with its stderr", () => {
    const view = describeRun(run({ cmd: "ls nope", exitCode: 2, stderr: "ls: cannot access 'nope'\n", durationMs: 1300 }));
    expect(view).toEqual({ command: "$ ls nope", status: "exit 2 · 1.3 s", output: "ls: cannot access 'nope'", ok: false });
  });

  it("says the outcome is unknown when the exit code was lost", () => {
    const view = describeRun(run({ exitCode: null }));
    expect(view.status).toBe("outcome unknown (the Worker restarted while it ran)");
    expect(view.ok).toBe(false);
  });

  it("shows the error when the sandbox failed, and marks truncated output", () => {
    const view = describeRun(run({ exitCode: 124, error: "timed out after 30 s", truncated: true, stdout: "partial" }));
    expect(view.status).toBe("failed: timed out after 30 s · output truncated");
    expect(view.ok).toBe(false);
    expect(describeRun(run({ truncated: true })).status).toBe("exit 0 · 12 ms · output truncated");
  });
});

describe("formatDuration", () => {
  it.each([
    [0, "0 ms"],
    [12, "12 ms"],
    [999.4, "999 ms"],
    [999.6, "1.0 s"],
    [1300, "1.3 s"],
    [59_940, "59.9 s"],
    [59_960, "1 min"],
    [125_000, "2 min 5 s"],
    [3_720_000, "1 h 2 min"],
    [7_200_000, "2 h"],
    [-5, "0 ms"],
    [Number.NaN, "0 ms"],
  ])("%d ms → %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
