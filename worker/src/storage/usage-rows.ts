import { type TurnUsage, UsageTotals, type UsageEntry } from "../usage/usage-entries.ts";

type Row = Record<string, SqlStorageValue>;

/** The ledger's column for the rollup (the ledger makes or adds it). */
export const USAGE_COLUMNS: Readonly<Record<string, string>> = { usage_carry: "TEXT" };

/** An answered turn's usage, as its row holds it. */
interface HeldUsage {
  userId: string | null;
  userName: string | null;
  at: number;
  usage: TurnUsage;
}

/**
 * A room's model usage, kept in the turn rows: each answered turn's `usage`
 * sits in its answer JSON, so counting costs no row written. The ledger
 * reuses a turn's row once it leaves the history; the turn leaving it is then
 * added to a rollup (`usage_carry`, the totals of every turn whose row was
 * reused), written as part of the row that takes the slot, a row written
 * anyway. The newest rollup (highest `v`) is the one that counts. Like the
 * ledger's index, what the rows hold is read once per wake and kept in step
 * by every write, so a turn reads nothing back.
 */
export class UsageRows {
  private carry: { v: number; entries: UsageEntry[] };
  private readonly held = new Map<number, HeldUsage>();

  constructor(sql: SqlStorage) {
    let newest: { v: number; entries: UsageEntry[] } | null = null;
    const rows = sql.exec<Row>(
      `SELECT slot, user_id, user_name, answered_at, usage_carry,
        CASE WHEN status = 'done' AND answer IS NOT NULL THEN json_extract(answer, '$.usage') END AS usage
       FROM duet_ledger WHERE usage_carry IS NOT NULL OR (status = 'done' AND answer IS NOT NULL AND json_extract(answer, '$.usage') IS NOT NULL)`,
    );
    for (const r of rows) {
      if (r.usage !== null) {
        this.held.set(Number(r.slot), {
          userId: r.user_id === null ? null : String(r.user_id),
          userName: r.user_name === null ? null : String(r.user_name),
          at: Number(r.answered_at),
          usage: JSON.parse(String(r.usage)) as TurnUsage,
        });
      }
      if (r.usage_carry !== null) {
        const carry = JSON.parse(String(r.usage_carry)) as { v: number; entries: UsageEntry[] };
        if (!newest || carry.v > newest.v) newest = carry;
      }
    }
    this.carry = newest ?? { v: 0, entries: [] };
  }

  /**
   * The rollup to write into a row about to be placed: when the row reuses
   * `slot`, the turn leaving it is added first. Old days are dropped, so the
   * rollup stays a few hundred bytes.
   */
  carryInto(slot: number | null, now: number): string | null {
    const leaving = slot === null ? undefined : this.held.get(slot);
    if (leaving) {
      this.held.delete(slot!);
      const totals = new UsageTotals().addAll(this.carry.entries);
      totals.addTurn(leaving.at, leaving.userId, leaving.userName, leaving.usage);
      this.carry = { v: this.carry.v + 1, entries: totals.list(now) };
    }
    return this.carry.v ? JSON.stringify(this.carry) : null;
  }

  /** A turn was answered into `slot` with this usage. */
  answered(slot: number, held: HeldUsage): void {
    this.held.set(slot, held);
  }

  /** Every turn's usage over the last days: the rollup and the rows still held. */
  totals(now = Date.now()): UsageTotals {
    const totals = new UsageTotals().addAll(this.carry.entries);
    for (const h of this.held.values()) totals.addTurn(h.at, h.userId, h.userName, h.usage);
    return new UsageTotals().addAll(totals.list(now));
  }

  /** Before the rows are emptied by a person's reset: everything so far becomes the rollup, so a reset does not reset budgets. */
  keepAll(now = Date.now()): string | null {
    this.carry = { v: this.carry.v + 1, entries: this.totals(now).list(now) };
    this.held.clear();
    return this.carry.entries.length ? JSON.stringify(this.carry) : null;
  }

  /** The room is deleted: its usage goes with it. */
  forget(): void {
    this.carry = { v: 0, entries: [] };
    this.held.clear();
  }
}
