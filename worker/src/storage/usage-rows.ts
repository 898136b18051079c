import { UsageTotals, type UsageEntry } from "../usage/usage-entries.ts";
import type { TurnUsage } from "./turn-types.ts";

type Row = Record<string, SqlStorageValue>;

/**
 * A room's model usage, read from the turn rows it is kept in: each answered
 * turn's `usage` sits in its answer JSON, so counting costs no row written.
 * The ledger reuses a turn's row once it leaves the history; before that
 * row is overwritten its usage is added to a rollup (`usage_carry`, the
 * totals of every turn whose row was reused), and the rollup is written as
 * part of the row that takes the slot, a row written anyway. The newest
 * rollup (highest `v`) is the one that counts.
 */
export class UsageRows {
  private carry: { v: number; entries: UsageEntry[] };

  constructor(private readonly sql: SqlStorage) {
    const have = new Set(sql.exec<Row>(`PRAGMA table_info(duet_ledger)`).toArray().map((c) => String(c.name)));
    if (!have.has("usage_carry")) sql.exec(`ALTER TABLE duet_ledger ADD COLUMN usage_carry TEXT`);
    const newest = sql
      .exec<Row>(`SELECT usage_carry FROM duet_ledger WHERE usage_carry IS NOT NULL ORDER BY json_extract(usage_carry, '$.v') DESC LIMIT 1`)
      .toArray()[0];
    this.carry = newest ? (JSON.parse(String(newest.usage_carry)) as { v: number; entries: UsageEntry[] }) : { v: 0, entries: [] };
  }

  /**
   * The rollup to write into a row about to be placed: when the row reuses
   * `slot`, the turn leaving it is added first. Old days are dropped, so the
   * rollup stays a few hundred bytes.
   */
  carryInto(slot: number | null, now: number): string | null {
    if (slot !== null) {
      const old = this.sql.exec<Row>(`SELECT ${TURN_USAGE} FROM duet_ledger WHERE slot = ? AND ${HAS_USAGE}`, slot).toArray()[0];
      if (old) this.carry = { v: this.carry.v + 1, entries: totalsOf([old], this.carry.entries).list(now) };
    }
    return this.carry.v ? JSON.stringify(this.carry) : null;
  }

  /** Every turn's usage over the last days: the rollup and the rows still held. */
  totals(now = Date.now()): UsageTotals {
    const rows = this.sql.exec<Row>(`SELECT ${TURN_USAGE} FROM duet_ledger WHERE ${HAS_USAGE}`).toArray();
    return new UsageTotals().addAll(totalsOf(rows, this.carry.entries).list(now));
  }

  /** Before the rows are emptied by a person's reset: everything so far becomes the rollup, so a reset does not reset budgets. */
  keepAll(now = Date.now()): string | null {
    this.carry = { v: this.carry.v + 1, entries: this.totals(now).list(now) };
    return this.carry.entries.length ? JSON.stringify(this.carry) : null;
  }

  /** The room is deleted: its usage goes with it. */
  forget(): void {
    this.carry = { v: 0, entries: [] };
  }
}

const TURN_USAGE = `user_id, user_name, answered_at, json_extract(answer, '$.usage') AS usage`;
const HAS_USAGE = `status = 'done' AND answer IS NOT NULL AND json_extract(answer, '$.usage') IS NOT NULL`;

function totalsOf(rows: Row[], carried: UsageEntry[]): UsageTotals {
  const totals = new UsageTotals().addAll(carried);
  for (const r of rows) {
    const userName = r.user_name === null ? null : String(r.user_name);
    totals.addTurn(Number(r.answered_at), r.user_id === null ? null : String(r.user_id), userName, JSON.parse(String(r.usage)) as TurnUsage);
  }
  return totals;
}
