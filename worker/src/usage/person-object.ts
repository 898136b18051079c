import { DurableObject } from "cloudflare:workers";
import { USAGE_DAYS } from "./usage-entries.ts";
import type { PersonPeer } from "./person-budget.ts";

interface Row extends Record<string, SqlStorageValue> {
  tokens: number;
}

/**
 * One person's model tokens per UTC day across every room of their workspace
 * (one object per platform, workspace and person), so a per-person budget
 * (DUET_USER_DAILY_TOKENS) holds across channels and threads. One row per
 * day: each answered turn adds to it with one UPSERT, the one row a turn
 * writes here; days past the usage window are dropped as a new day begins.
 */
export class PersonUsage extends DurableObject<object> implements PersonPeer {
  /** Rows written since this object started (what a turn costs here; for tests and the benchmark). */
  private rowsWritten = 0;

  constructor(ctx: DurableObjectState, env: object) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS used (day TEXT PRIMARY KEY, tokens INTEGER NOT NULL)");
  }

  async usedOn(day: string): Promise<number> {
    return this.ctx.storage.sql.exec<Row>("SELECT tokens FROM used WHERE day = ?", day).toArray()[0]?.tokens ?? 0;
  }

  /** Adds one turn's tokens to `day`; answers the day's total. `oldest`: days before it are dropped (rows only the first turn of a day finds). */
  async add(day: string, tokens: number, oldest: string): Promise<number> {
    const sql = this.ctx.storage.sql;
    const upsert = sql.exec<Row>(
      "INSERT INTO used (day, tokens) VALUES (?, ?) ON CONFLICT(day) DO UPDATE SET tokens = tokens + excluded.tokens RETURNING tokens",
      day,
      tokens,
    );
    const total = upsert.one().tokens;
    this.rowsWritten += upsert.rowsWritten;
    this.rowsWritten += sql.exec("DELETE FROM used WHERE day < ?", oldest).rowsWritten;
    return total;
  }

  async stats(): Promise<{ rowsWrittenSinceStart: number; days: number }> {
    return { rowsWrittenSinceStart: this.rowsWritten, days: USAGE_DAYS };
  }
}
