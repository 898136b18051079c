import { describe, expect, it } from "vitest";
import { InFlight } from "./in-flight.ts";

describe("InFlight", () => {
  it("reports a failure instead of throwing it, and forgets settled work", async () => {
    const lines: string[] = [];
    const work = new InFlight((l) => lines.push(l));
    await work.track(Promise.reject(new Error("boom")), "interaction");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^interaction failed: Error: boom/);
    expect(work.size).toBe(0);
  });

  it("drains finished work at once, and gives up on stuck work after the grace period", async () => {
    const work = new InFlight(() => {});
    let done = false;
    void work.track(new Promise<void>((r) => setTimeout(() => ((done = true), r()), 20)));
    await work.drain(5_000);
    expect(done).toBe(true);
    // Work that never settles: drain returns anyway (or this test would time out).
    void work.track(new Promise<void>(() => {}));
    await work.drain(30);
    expect(work.size).toBe(1);
  });
});
