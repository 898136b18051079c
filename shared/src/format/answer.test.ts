import { describe, expect, it } from "vitest";
import type { MessageResponse, RunResult } from "../wire/schemas.ts";
import { explanationOf } from "./answer.ts";

const run = (cmd: string, extra: Partial<RunResult> = {}): RunResult => ({ cmd, exitCode: 0, stdout: "", stderr: "", truncated: false, durationMs: 1, ...extra });
const answer = (reply: string, runs: RunResult[] = [], extra: Partial<MessageResponse> = {}): MessageResponse => ({ reply, messages: [], runs, ...extra });

describe("explanationOf", () => {
  it("uses the Worker's explanation when it sends one", () => {
    expect(explanationOf(answer("Listing.\n\nOutput (ls):\na", [run("ls")], { explanation: " Listing. " }))).toBe("Listing.");
    expect(explanationOf(answer("Output (ls):\na", [run("ls")], { explanation: "" }))).toBe("");
  });

  it("otherwise keeps the model's words and drops the Output/Error sections the runs show better", () => {
    expect(explanationOf(answer("Listing files\n\nOutput (ls -la):\ntotal 0\n\nError (cat x):\nnope", [run("ls -la"), run("cat x")]))).toBe("Listing files");
    expect(explanationOf(answer("Trying.\n\nError (ls):\nboom", [run("ls", { error: "boom" })]))).toBe("Trying.");
    expect(explanationOf(answer("Output (echo (hi)):\nhi", [run("echo (hi)")]))).toBe("");
    expect(explanationOf(answer("Just words"))).toBe("Just words");
    // The reply's copy of the command was redacted; the section is still recognised.
    expect(explanationOf(answer("Using the key\n\nOutput (curl -H 'x: [redacted]'):\nok", [run("curl -H 'x: s3cr3t'")]))).toBe("Using the key");
  });
});
