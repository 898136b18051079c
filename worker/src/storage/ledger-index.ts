import { IDEMPOTENCY_TTL_MS } from "@duet/shared";

/** The state of a ledger row: accepted and running, answered, or free for reuse. */
export type SlotStatus = "pending" | "done" | "free";

/** What the ledger needs to know about a row without reading it: everything but the texts. */
export interface SlotEntry {
  seq: number;
  kind: "message" | "exec";
  status: SlotStatus;
  idemKey: string | null;
  receivedAt: number;
  /** In the history once answered: every message turn, and a direct run stored with its note. */
  shown: boolean;
  /** The delivery that asked first with the key (see TurnRows.claimantOf); null when none said. */
  claimant: string | null;
}

/**
 * The ledger's rows as a map of slot to state, read once when the room wakes
 * and kept in step by every write of the ledger (it is the only writer of its
 * table). Choosing the row a new turn reuses and finding a key's answer are
 * then decided here, with no query; the table has no index to ask instead,
 * since each index would add a row written to every change.
 */
export class LedgerIndex {
  private readonly slots = new Map<number, SlotEntry>();

  /** `historyTurns`: how many answered turns the history shows (their rows are never reused). */
  constructor(private readonly historyTurns: number) {}

  set(slot: number, entry: SlotEntry): void {
    this.slots.set(slot, entry);
  }

  get(slot: number): SlotEntry | undefined {
    return this.slots.get(slot);
  }

  /** Updates a row's state, if it still holds turn `seq` (a later turn may have taken the slot). */
  update(slot: number, seq: number, change: Partial<SlotEntry>): void {
    const entry = this.slots.get(slot);
    if (entry && entry.seq === seq) Object.assign(entry, change);
  }

  clear(): void {
    this.slots.clear();
  }

  maxSeq(): number {
    let max = 0;
    for (const e of this.slots.values()) if (e.seq > max) max = e.seq;
    return max;
  }

  /**
   * The oldest row no one needs: a failed turn's, or an answered one that is
   * neither in the history (the newest `historyTurns` shown turns) nor
   * replayable (keyed and received within the TTL). Null: the table grows.
   */
  reusable(now: number): number | null {
    const shown: number[] = [];
    for (const e of this.slots.values()) if (e.shown && e.status === "done") shown.push(e.seq);
    shown.sort((a, b) => b - a);
    // Older than the oldest message in the history; with fewer answered turns than that, no message row is free.
    const oldestShown = shown.length >= this.historyTurns ? shown[this.historyTurns - 1] : -Infinity;
    let best: { slot: number; seq: number } | null = null;
    for (const [slot, e] of this.slots) {
      const free =
        e.status === "free" ||
        (e.status === "done" &&
          (e.idemKey === null || e.receivedAt <= now - IDEMPOTENCY_TTL_MS) &&
          (!e.shown || e.seq < oldestShown));
      if (free && (!best || e.seq < best.seq)) best = { slot, seq: e.seq };
    }
    return best?.slot ?? null;
  }

  /** The newest row of `kind` in `status` under `idemKey` received after `since`, or null. */
  byKey(kind: SlotEntry["kind"], status: SlotStatus, idemKey: string, since = -Infinity): number | null {
    let best: { slot: number; seq: number } | null = null;
    for (const [slot, e] of this.slots) {
      if (e.kind === kind && e.status === status && e.idemKey === idemKey && e.receivedAt > since && (!best || e.seq > best.seq)) {
        best = { slot, seq: e.seq };
      }
    }
    return best?.slot ?? null;
  }
}
