import { type TurnUsage, UsageTotals, type UsageEntry } from "../usage/usage-entries.ts";

type Row = Record<string, SqlStorageValue>;

/** The ledger's column for the rollup (the ledger makes or adds it). */
export const USAGE_COLUMNS: Readonly<Record<string, string>> = { usage_carry: "TEXT" };

interface Carry {
  v: number;
  entries: UsageEntry[];
}

/** An entry as a rollup stores it: its fields in this order, without their names (the cost and the unpriced count last, absent in rollups written before prices). */
type StoredEntry = [string, string | null, string | null, string, number, number, number, number, number?, number?];

/**
 * A rollup as its column holds it: `{"v":…,"e":[[date, userId, userName,
 * model, inputTokens, outputTokens, turns, unreported], …]}`. It rides in
 * every row placed, so it is kept small enough that a turn's row needs no
 * page more for it; named fields would more than double it (about 200
 * bytes a person) and cost a page more every fifth turn.
 */
function writeCarry(carry: Carry): string {
  const e: StoredEntry[] = carry.entries.map((x) => [x.date, x.userId, x.userName, x.model, x.inputTokens, x.outputTokens, x.turns, x.unreported, x.costMicros, x.unpriced]);
  return JSON.stringify({ v: carry.v, e });
}

/**
 * A stored rollup, in either form: arrays (`e`), or `entries` as objects, as
 * older rows hold them. Turns counted before prices existed had none: their
 * reported turns count as unpriced.
 */
function readCarry(text: string): Carry {
  const stored = JSON.parse(text) as { v: number; e?: StoredEntry[]; entries?: Array<Omit<UsageEntry, "costMicros" | "unpriced"> & Partial<UsageEntry>> };
  const entries = stored.e
    ? stored.e.map(([date, userId, userName, model, inputTokens, outputTokens, turns, unreported, cost, unpriced]) => ({
        date, userId, userName, model, inputTokens, outputTokens, turns, unreported,
        costMicros: cost ?? 0, unpriced: unpriced ?? turns - unreported,
      }))
    : (stored.entries ?? []).map((x) => ({ ...x, costMicros: x.costMicros ?? 0, unpriced: x.unpriced ?? x.turns - x.unreported }));
  return { v: stored.v, entries };
}

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
  private carry: Carry;
  private readonly held = new Map<number, HeldUsage>();

  constructor(sql: SqlStorage) {
    let newest: Carry | null = null;
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
        const carry = readCarry(String(r.usage_carry));
        if (!newest || carry.v > newest.v) newest = carry;
      }
    }
    this.carry = newest ?? { v: 0, entries: [] };
  }

  /**
   * The rollup to write into a row about to be placed: when the row reuses
   * `slot`, the turn leaving it is added first. Old days are dropped, and each
   * entry is a bare array (writeCarry), so the rollup stays small: it is
   * written with every row placed.
   */
  carryInto(slot: number | null, now: number): string | null {
    const leaving = slot === null ? undefined : this.held.get(slot);
    if (leaving) {
      this.held.delete(slot!);
      const totals = new UsageTotals().addAll(this.carry.entries);
      totals.addTurn(leaving.at, leaving.userId, leaving.userName, leaving.usage);
      this.carry = { v: this.carry.v + 1, entries: totals.list(now) };
    }
    return this.carry.v ? writeCarry(this.carry) : null;
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
    return this.carry.entries.length ? writeCarry(this.carry) : null;
  }

  /** The room is deleted: its usage goes with it. */
  forget(): void {
    this.carry = { v: 0, entries: [] };
    this.held.clear();
  }
}
