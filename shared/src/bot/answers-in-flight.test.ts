import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DELIVERY_LEASE_MS } from "../wire/delivery.ts";
import { AnswersInFlight } from "./answers-in-flight.ts";

describe("AnswersInFlight", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it("keeps a held answer leased from the moment it is answered, every third of the lease, until released, and not before", async () => {
    const renewed: string[] = [];
    const answering = new AnswersInFlight({ renew: async (room, key) => (renewed.push(`${room}/${key}`), { held: true, leaseMs: 15_000 }) });
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

  it("keeps an answer the feed handed out leased while it is posted: a third of the lease after the hand-out, then every third, until released", async () => {
    const at: number[] = [];
    const answering = new AnswersInFlight({ renew: async () => (at.push(Date.now()), { held: true, leaseMs: 15_000 }) });
    const start = Date.now();
    const release = answering.handed("r", "k");
    // This process's own flow leaves it to the delivery, as it does an answer it is posting itself.
    expect(answering.has("r", "k")).toBe(true);
    await vi.advanceTimersByTimeAsync(16_000);
    expect(at.map((t) => t - start)).toEqual([5_000, 10_000, 15_000]);
    release();
    expect(answering.has("r", "k")).toBe(false);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(at).toHaveLength(3);
    // Without a way to renew (one replica), it is only held here.
    const alone = new AnswersInFlight();
    const releaseAlone = alone.handed("r", "k");
    expect(alone.has("r", "k")).toBe(true);
    releaseAlone();
  });

  it("renews at a third of the lease the Worker names, from its first hold on; at a third of DELIVERY_LEASE_MS when the Worker names none", async () => {
    const at: number[] = [];
    let leaseMs: number | undefined = 3_000;
    const answering = new AnswersInFlight({ renew: async () => (at.push(Date.now()), { held: true, ...(leaseMs ? { leaseMs } : {}) }) });
    const start = Date.now();
    const release = answering.hold("r", "k1");
    answering.answered("r", "k1");
    // Each renewal keeps the answer for 3 s: the next comes a second later, never the 5 s a 15 s lease would allow.
    await vi.advanceTimersByTimeAsync(4_500);
    expect(at.map((t) => t - start)).toEqual([0, 1_000, 2_000, 3_000, 4_000]);
    // A second answer held by this process renews at the lease already learned.
    release();
    at.length = 0;
    const second = Date.now();
    const release2 = answering.hold("r", "k2");
    answering.answered("r", "k2");
    await vi.advanceTimersByTimeAsync(1_000);
    expect(at.map((t) => t - second)).toEqual([0, 1_000]);
    release2();

    // A Worker that names no lease leases DELIVERY_LEASE_MS.
    leaseMs = undefined;
    const older = new AnswersInFlight({ renew: async () => (at.push(Date.now()), { held: true }) });
    at.length = 0;
    const third = Date.now();
    older.hold("r", "k3");
    older.answered("r", "k3");
    await vi.advanceTimersByTimeAsync(DELIVERY_LEASE_MS - 1);
    expect(at.map((t) => t - third)).toEqual([0, DELIVERY_LEASE_MS / 3, (2 * DELIVERY_LEASE_MS) / 3]);
  });

  it("a failed renewal is logged and the next one is still tried", async () => {
    const lines: string[] = [];
    let calls = 0;
    const answering = new AnswersInFlight({
      renew: () => (calls++ === 0 ? Promise.reject(new Error("cannot reach the Worker")) : Promise.resolve({ held: true })),
      log: (l) => lines.push(l),
    });
    const release = answering.hold("r", "k");
    answering.answered("r", "k");
    await vi.advanceTimersByTimeAsync(DELIVERY_LEASE_MS / 3);
    expect(calls).toBe(2);
    release();
    expect(lines).toEqual([expect.stringContaining("cannot reach the Worker")]);
  });
});
