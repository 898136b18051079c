import { describe, expect, it } from "vitest";
import type { RawExecResult, SandboxExecutor } from "./types.ts";
import { WarmTracker } from "./warm-tracker.ts";

class Recorder implements SandboxExecutor {
  calls: string[] = [];
  async exec(_room: string, cmd: string): Promise<RawExecResult> {
    this.calls.push(`exec ${cmd}`);
    return { exitCode: 0, stdout: "", stderr: "", durationMs: 0, truncated: false };
  }
  async destroy(): Promise<void> {
    this.calls.push("destroy");
  }
}

describe("WarmTracker", () => {
  it("wakes a cold sandbox once, and not again while it was used recently", async () => {
    let now = 1_000_000;
    const inner = new Recorder();
    const tracked = new WarmTracker(inner, 60_000, () => now);
    await tracked.warm("r");
    await tracked.warm("r");
    await tracked.exec("r", "ls", 1000);
    now += 59_000;
    await tracked.warm("r");
    now += 2_000;
    await tracked.warm("r");
    expect(inner.calls).toEqual(["exec true", "exec ls", "exec true"]);
  });

  it("never throws when the wake-up fails", async () => {
    const failing: SandboxExecutor = { exec: async () => Promise.reject(new Error("down")), destroy: async () => {} };
    await expect(new WarmTracker(failing).warm("r")).resolves.toBeUndefined();
  });

  it("forgets warmth when the sandbox is destroyed", async () => {
    const inner = new Recorder();
    const tracked = new WarmTracker(inner, 60_000, () => 5);
    await tracked.exec("r", "ls", 1000);
    await tracked.destroy("r");
    await tracked.warm("r");
    expect(inner.calls).toEqual(["exec ls", "destroy", "exec true"]);
  });
});
