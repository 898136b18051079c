import { describe, expect, it } from "vitest";
import { StopSwitch, TurnStopped } from "./stop.ts";

describe("a room's stop switch", () => {
  it("aborts the running turn's signal once, with who stopped it, and nothing when idle", () => {
    const stop = new StopSwitch();
    expect(stop.stop("U1")).toBe(false);
    const signal = stop.begin("t1");
    expect(stop.stop("U1")).toBe(true);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(TurnStopped);
    expect((signal.reason as TurnStopped).by).toBe("U1");
    expect(stop.stop("U2")).toBe(false);
    stop.end("t1");
    expect(stop.stop()).toBe(false);
  });

  it("a turn that ended cannot clear the slot of the next one", () => {
    const stop = new StopSwitch();
    stop.begin("t1");
    const next = stop.begin("t2");
    stop.end("t1");
    expect(stop.stop()).toBe(true);
    expect(next.aborted).toBe(true);
  });
});
