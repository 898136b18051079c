import { IDEMPOTENCY_TTL_MS } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { LedgerIndex, type SlotEntry } from "./ledger-index.ts";

const entry = (seq: number, change: Partial<SlotEntry> = {}): SlotEntry => ({
  seq, kind: "message", status: "done", idemKey: null, receivedAt: 0, shown: true, claimant: null, ...change,
});

/** An index of `answered` answered message turns in slots 1..n, history of 3 turns. */
function answered(n: number): LedgerIndex {
  const index = new LedgerIndex(3);
  for (let i = 1; i <= n; i++) index.set(i, entry(i));
  return index;
}

describe("LedgerIndex", () => {
  it("never gives out a row still in the history; past it, the oldest row", () => {
    expect(answered(3).reusable(0)).toBeNull();
    expect(answered(5).reusable(0)).toBe(1);
  });

  it("gives out a failed turn's row first when it is the oldest, whatever the history holds", () => {
    const index = answered(2);
    index.set(7, entry(0, { status: "free" }));
    expect(index.reusable(0)).toBe(7);
  });

  it("keeps a keyed answer's row through the replay window", () => {
    const index = answered(5);
    index.update(1, 1, { idemKey: "Ev1", receivedAt: 1_000 });
    expect(index.reusable(1_000 + IDEMPOTENCY_TTL_MS - 1)).toBe(2);
    expect(index.reusable(1_000 + IDEMPOTENCY_TTL_MS)).toBe(1);
  });

  it("reuses an answered row the history does not show at once, and never a pending turn's", () => {
    const index = answered(3);
    index.set(9, entry(0, { kind: "exec", status: "pending", shown: false }));
    expect(index.reusable(0)).toBeNull();
    index.update(9, 0, { status: "done" });
    expect(index.reusable(0)).toBe(9);
  });

  it("ignores an update for a turn whose slot a later turn took", () => {
    const index = answered(1);
    index.set(1, entry(5, { status: "pending" }));
    index.update(1, 1, { status: "free" });
    expect(index.byKey("message", "pending", "x")).toBeNull();
    expect(index.reusable(0)).toBeNull();
  });

  it("finds a key's newest row of a kind and status, within the window", () => {
    const index = new LedgerIndex(3);
    index.set(1, entry(1, { idemKey: "K", receivedAt: 10 }));
    index.set(2, entry(2, { idemKey: "K", receivedAt: 20 }));
    index.set(3, entry(3, { idemKey: "K", kind: "exec", receivedAt: 30 }));
    expect(index.byKey("message", "done", "K")).toBe(2);
    expect(index.byKey("message", "done", "K", 20)).toBeNull();
    expect(index.byKey("exec", "done", "K")).toBe(3);
    expect(index.byKey("message", "pending", "K")).toBeNull();
    expect(index.maxSeq()).toBe(3);
  });
});
