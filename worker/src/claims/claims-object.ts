import { DurableObject } from "cloudflare:workers";

interface Row extends Record<string, SqlStorageValue> {
  until: number;
}

/**
 * The delivery ids claimed in one scope (a Slack workspace, a Discord guild),
 * each until its TTL passes. Storage calls of a Durable Object run one at a
 * time and `claim` has no await between its read and its write, so two
 * replicas claiming the same id at once get one `true` and one `false`.
 * Expired rows are swept by the alarm in one statement, not one by one.
 */
export class EventClaims extends DurableObject<object> {
  constructor(ctx: DurableObjectState, env: object) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS claim (id TEXT PRIMARY KEY, until INTEGER NOT NULL)");
  }

  /** True the first time `id` is claimed within `ttlMs`. */
  async claim(id: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const row = this.ctx.storage.sql.exec<Row>("SELECT until FROM claim WHERE id = ?", id).toArray()[0];
    if (row && row.until > now) return false;
    this.ctx.storage.sql.exec("INSERT INTO claim (id, until) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET until = excluded.until", id, now + ttlMs);
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(now + ttlMs);
    return true;
  }

  async alarm(): Promise<void> {
    const now = Date.now();
    this.ctx.storage.sql.exec("DELETE FROM claim WHERE until <= ?", now);
    const next = this.ctx.storage.sql.exec<{ next: number | null }>("SELECT MIN(until) AS next FROM claim").one().next;
    if (next !== null) await this.ctx.storage.setAlarm(next);
  }
}
