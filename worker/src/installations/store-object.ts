import { DurableObject } from "cloudflare:workers";
import type { InstallationRecord, RefreshClaim, RefreshClaimResult, StoredInstallation } from "@duet/shared/installations";
import { open, seal } from "./seal.ts";

/** What the store's Durable Object needs from the Worker's environment. */
export interface StoreEnv {
  DUET_STORE_KEY?: string;
}

/** A store that lost a compare-and-swap: the version it holds now (null: removed). */
export interface Conflict {
  conflict: true;
  version: number | null;
}

interface Row extends Record<string, SqlStorageValue> {
  version: number;
  sealed: ArrayBuffer;
  lease_holder: string | null;
  lease_until: number | null;
}

/**
 * One Slack installation (one workspace, or one Grid org for an org-wide
 * install): a single SQLite row holding the installation sealed with AES-GCM,
 * a version that every store bumps, and the refresh lease. Storage calls of a
 * Durable Object run one at a time, so a compare-and-swap here is atomic
 * across every bot replica: that is what lets exactly one replica refresh a
 * rotating token while the others wait for its result.
 */
export class InstallationStore extends DurableObject<StoreEnv> {
  constructor(ctx: DurableObjectState, env: StoreEnv) {
    super(ctx, env);
    ctx.storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS installation (
        key TEXT PRIMARY KEY,
        version INTEGER NOT NULL,
        sealed BLOB NOT NULL,
        lease_holder TEXT,
        lease_until INTEGER,
        updated_at INTEGER NOT NULL
      )`,
    );
    // An org-wide install's workspaces (team ids) that Duet has answered in; one row each.
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS org_team (team TEXT PRIMARY KEY)");
  }

  private row(key: string): Row | undefined {
    return this.ctx.storage.sql.exec<Row>("SELECT version, sealed, lease_holder, lease_until FROM installation WHERE key = ?", key).toArray()[0];
  }

  private secret(): string {
    // The routes refuse to reach this object without the key; this guards a direct call.
    if (!this.env.DUET_STORE_KEY) throw new Error("DUET_STORE_KEY is not set");
    return this.env.DUET_STORE_KEY;
  }

  async get(key: string): Promise<InstallationRecord | null> {
    const row = this.row(key);
    if (!row) return null;
    const installation = JSON.parse(await open(this.secret(), key, new Uint8Array(row.sealed))) as StoredInstallation;
    return { installation, version: row.version };
  }

  /** Stores the installation (a new install replaces an old one); with `ifVersion`, only over that version. */
  async put(key: string, installation: StoredInstallation, ifVersion?: number): Promise<{ version: number } | Conflict> {
    // Sealed before reading the row: an await between the check and the write would let another store in.
    const sealed = await seal(this.secret(), key, JSON.stringify(installation));
    const current = this.row(key);
    if (ifVersion !== undefined && current?.version !== ifVersion) return { conflict: true, version: current?.version ?? null };
    const version = (current?.version ?? 0) + 1;
    this.ctx.storage.sql.exec(
      `INSERT INTO installation (key, version, sealed, lease_holder, lease_until, updated_at) VALUES (?, ?, ?, NULL, NULL, ?)
       ON CONFLICT(key) DO UPDATE SET version = excluded.version, sealed = excluded.sealed, lease_holder = NULL, lease_until = NULL, updated_at = excluded.updated_at`,
      key,
      version,
      sealed,
      Date.now(),
    );
    return { version };
  }

  /** Removes the installation and, for an org, the workspaces recorded under it. */
  async remove(key: string): Promise<boolean> {
    this.ctx.storage.sql.exec("DELETE FROM org_team");
    return this.ctx.storage.sql.exec("DELETE FROM installation WHERE key = ?", key).rowsWritten > 0;
  }

  /** Records a workspace an org-wide install answered in (only while installed); true when it is new. */
  async addTeam(key: string, team: string): Promise<boolean> {
    if (!this.row(key)) return false;
    return this.ctx.storage.sql.exec("INSERT INTO org_team (team) VALUES (?) ON CONFLICT(team) DO NOTHING", team).rowsWritten > 0;
  }

  /** The workspaces recorded under this org, oldest first. */
  async teams(): Promise<string[]> {
    return this.ctx.storage.sql.exec<{ team: string }>("SELECT team FROM org_team ORDER BY rowid").toArray().map((r) => r.team);
  }

  /**
   * Grants the refresh of `version`'s tokens to one holder at a time. Refused
   * when the version moved on (someone already refreshed: re-read) or another
   * holder's lease still runs (someone is refreshing: wait, then re-read).
   */
  async claimRefresh(key: string, claim: RefreshClaim): Promise<RefreshClaimResult> {
    const row = this.row(key);
    if (!row || row.version !== claim.version) return { granted: false, version: row?.version ?? null };
    const now = Date.now();
    if (row.lease_holder && row.lease_holder !== claim.holder && (row.lease_until ?? 0) > now) return { granted: false, version: row.version };
    this.ctx.storage.sql.exec("UPDATE installation SET lease_holder = ?, lease_until = ? WHERE key = ?", claim.holder, now + claim.leaseMs, key);
    return { granted: true, version: row.version };
  }
}
