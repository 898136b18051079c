import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { liveGroupMembers, stopGroup, supervise } from "./processes.ts";

/** A shell that leaves two grandchildren behind, in its own group, and says when they are running. */
function startFamily(script: string) {
  const child = spawn("sh", ["-c", script], { detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  const s = supervise("family", child, (l) => lines.push(l));
  const started = new Promise<void>((resolve) => child.stdout!.on("data", (d: Buffer) => d.toString().includes("started") && resolve()));
  return { s, lines, started };
}

describe("stopGroup", () => {
  it("stops a child and everything it started", async () => {
    const { s, lines, started } = startFamily("sleep 300 & sleep 300 & echo started; wait");
    await started;
    expect(liveGroupMembers(s.pid).length).toBeGreaterThanOrEqual(3);
    expect(lines).toContain("[family] started");
    await stopGroup(s, "SIGTERM", 5_000);
    expect(liveGroupMembers(s.pid)).toEqual([]);
    expect(await s.exited).toEqual({ code: null, signal: "SIGTERM" });
  });

  it("kills a group that ignores the polite signal once the grace period ends", async () => {
    const { s, started } = startFamily("trap '' TERM; (trap '' TERM; sleep 300) & echo started; while :; do sleep 1; done");
    await started;
    await stopGroup(s, "SIGTERM", 300);
    expect(liveGroupMembers(s.pid)).toEqual([]);
    expect((await s.exited).signal).toBe("SIGKILL");
  });
});
