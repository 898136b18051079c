import type { RunPolicy } from "@duet/shared";

type Row = Record<string, SqlStorageValue>;

/**
 * A room's run policy: one row, written only when someone changes it. A room
 * that never set one follows DUET_RUN_POLICY, so changing that default moves
 * every such room at once.
 */
export class RunPolicyStore {
  /** Read once per instance: every turn asks, and only this class writes it. */
  private cached: RunPolicy | null = null;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly fallback: RunPolicy,
  ) {
    storage.sql.exec(`CREATE TABLE IF NOT EXISTS duet_policy (id INTEGER PRIMARY KEY CHECK (id = 1), run_policy TEXT NOT NULL)`);
  }

  get(): RunPolicy {
    if (this.cached === null) {
      const row = this.storage.sql.exec<Row>(`SELECT run_policy FROM duet_policy WHERE id = 1`).toArray()[0];
      this.cached = row ? (String(row.run_policy) as RunPolicy) : this.fallback;
    }
    return this.cached;
  }

  /** One row written (an upsert on the single row). */
  set(policy: RunPolicy): void {
    this.storage.sql
      .exec(`INSERT INTO duet_policy (id, run_policy) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET run_policy = excluded.run_policy`, policy)
      .toArray();
    this.cached = policy;
  }

  wipe(): void {
    this.storage.sql.exec(`DELETE FROM duet_policy`).toArray();
    this.cached = null;
  }
}
