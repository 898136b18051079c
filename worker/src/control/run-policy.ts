import type { PolicyResponse, RunPolicy } from "@duet/shared";

type Row = Record<string, SqlStorageValue>;

/**
 * A room's run policy: one row, written only when someone changes it. A room
 * that never set one follows what it inherits (a thread room: its channel's
 * policy, handed down by the channel), else DUET_RUN_POLICY, so changing that
 * default moves every such room at once.
 */
export class RunPolicyStore {
  /** Read once per instance: every turn asks, and only this class writes it. Undefined: not read yet. */
  private cached: RunPolicy | null | undefined;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly fallback: RunPolicy,
    /** The policy handed down from the room's channel (kept in memory by the room tree), or null. */
    private readonly inherited: () => RunPolicy | null = () => null,
  ) {
    storage.sql.exec(`CREATE TABLE IF NOT EXISTS duet_policy (id INTEGER PRIMARY KEY CHECK (id = 1), run_policy TEXT NOT NULL)`);
  }

  /** The policy set on this room itself, or null. */
  own(): RunPolicy | null {
    if (this.cached === undefined) {
      const row = this.storage.sql.exec<Row>(`SELECT run_policy FROM duet_policy WHERE id = 1`).toArray()[0];
      this.cached = row ? (String(row.run_policy) as RunPolicy) : null;
    }
    return this.cached;
  }

  /** The policy turns follow here, and where it comes from: the room's own wins over its channel's, which wins over the default. */
  view(): Required<PolicyResponse> {
    const own = this.own();
    if (own) return { runPolicy: own, source: "room" };
    const inherited = this.inherited();
    if (inherited) return { runPolicy: inherited, source: "channel" };
    return { runPolicy: this.fallback, source: "default" };
  }

  get(): RunPolicy {
    return this.view().runPolicy;
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
