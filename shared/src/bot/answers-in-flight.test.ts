import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AnswersInFlight } from "./answers-in-flight.ts";

describe("AnswersInFlight", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it("keeps a held answer leased from the moment it is answered, every few seconds, until released, and not before", async () => {
    const renewed: string[] = [];
    const answering = new AnswersInFlight({ renew: async (room, key) => void renewed.push(`${room}/${key}`), renewEveryMs: 5_000 });
    const release = answering.hold("slack-T1-C1", "Ev1");
    expect(answering.has("slack-T1-C1", "Ev1")).toBe(true);
    // While the turn runs its row cannot be offered: nothing is leased (nor written) yet.
    await vi.advanceTimersByTimeAsync(30_000);
    expect(renewed).toEqual([]);
    answering.answered("slack-T1-C1", "Ev1");
    expect(renewed).toEqual(["slack-T1-C1/Ev1"]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(renewed).toHaveLength(3);
    release();
    expect(answering.has("slack-T1-C1", "Ev1")).toBe(false);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(renewed).toHaveLength(3);
    // An answer not held here (another process's) is never leased by this one.
    answering.answered("slack-T1-C1", "Ev2");
    expect(renewed).toHaveLength(3);
  });

  it("a failed renewal is logged and the next one is still tried", async () => {
    const lines: string[] = [];
    let calls = 0;
    const answering = new AnswersInFlight({ renew: () => (calls++ === 0 ? Promise.reject(new Error("cannot reach the Worker")) : Promise.resolve()), renewEveryMs: 5_000, log: (l) => lines.push(l) });
    const release = answering.hold("r", "k");
    answering.answered("r", "k");
    await vi.advanceTimersByTimeAsync(5_000);
    expect(calls).toBe(2);
    release();
    expect(lines).toEqual([expect.stringContaining("cannot reach the Worker")]);
  });
});
