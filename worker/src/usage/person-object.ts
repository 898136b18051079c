import { DurableObject } from "cloudflare:workers";
import { USAGE_DAYS } from "./usage-entries.ts";
import type { PersonDay, PersonPeer } from "./person-budget.ts";

interface Row extends Record<string, SqlStorageValue> {
  tokens: number;
  cost_micros: number;
}

/**
 * One person's model tokens, and what the priced ones cost, per UTC day across
 * every room of their workspace (one object per platform, workspace and
 * person), so a per-person budget (DUET_USER_DAILY_TOKENS,
 * DUET_USER_DAILY_USD) holds across channels and threads. One row per
 * day: each answered turn adds to it with one UPSERT, the one row a turn
 * writes here; days past the usage window are dropped as a new day begins.
 */
export class PersonUsage extends DurableObject<object> implements PersonPeer {
  /** Rows written since this object started (what a turn costs here; for tests and the benchmark). */
  private rowsWritten = 0;

  constructor(ctx: DurableObjectState, env: object) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS used (day TEXT PRIMARY KEY, tokens INTEGER NOT NULL, cost_micros REAL NOT NULL DEFAULT 0)");
    // An object made before prices has the table without the cost column.
    const columns = sql.exec<{ name: string }>("SELECT name FROM pragma_table_info('used')").toArray().map((c) => c.name);
    if (!columns.includes("cost_micros")) sql.exec("ALTER TABLE used ADD COLUMN cost_micros REAL NOT NULL DEFAULT 0");
  }

  async usedOn(day: string): Promise<PersonDay> {
    const row = this.ctx.storage.sql.exec<Row>("SELECT tokens, cost_micros FROM used WHERE day = ?", day).toArray()[0];
    return { tokens: row?.tokens ?? 0, costMicros: row?.cost_micros ?? 0 };
  }

  /** Adds one turn's tokens and cost to `day`; answers the day's totals. `oldest`: days before it are dropped (rows only the first turn of a day finds). */
  async add(day: string, used: PersonDay, oldest: string): Promise<PersonDay> {
    const sql = this.ctx.storage.sql;
    const upsert = sql.exec<Row>(
      `INSERT INTO used (day, tokens, cost_micros) VALUES (?, ?, ?)
       ON CONFLICT(day) DO UPDATE SET tokens = tokens + excluded.tokens, cost_micros = cost_micros + excluded.cost_micros
       RETURNING tokens, cost_micros`,
      day,
      used.tokens,
      used.costMicros,
    );
    const row = upsert.one();
    const total = { tokens: row.tokens, costMicros: row.cost_micros };
    this.rowsWritten += upsert.rowsWritten;
    this.rowsWritten += sql.exec("DELETE FROM used WHERE day < ?", oldest).rowsWritten;
    return total;
  }

  async stats(): Promise<{ rowsWrittenSinceStart: number; days: number }> {
    return { rowsWrittenSinceStart: this.rowsWritten, days: USAGE_DAYS };
  }
}
