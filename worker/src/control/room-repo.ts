import type { RepoProvider, RepoResponse } from "@duet/shared";
import { LazyTable } from "../storage/lazy-table.ts";

type Row = Record<string, SqlStorageValue>;

/** A repository as a room holds it: `owner/name`, and the branch named (null: the repository's default). */
export interface RepoLink {
  repo: string;
  branch: string | null;
}

/**
 * The repository a room works on, kept as its model is (control/room-model.ts):
 * one row, written only when someone links or unlinks one, in a table made by
 * the first link. A thread room that linked none follows its channel's.
 */
export class RoomRepoStore {
  /** Read once per instance; only this class writes it. Undefined: not read yet. */
  private cached: RepoLink | null | undefined;
  private readonly table: LazyTable;

  constructor(
    private readonly storage: DurableObjectStorage,
    /** The repository handed down from the room's channel (kept by the room tree), or null. */
    private readonly inherited: () => RepoLink | null = () => null,
    /** Where the Worker's repositories are hosted: the GitHub App when one is configured, else the plain git remote. */
    private readonly provider: RepoProvider = "github",
  ) {
    this.table = new LazyTable(storage.sql, "duet_repo", `id INTEGER PRIMARY KEY CHECK (id = 1), repo TEXT NOT NULL, branch TEXT`);
  }

  /** The repository linked on this room itself, or null. */
  own(): RepoLink | null {
    if (this.cached === undefined) {
      const row = this.table.exists() ? this.storage.sql.exec<Row>(`SELECT repo, branch FROM duet_repo WHERE id = 1`).toArray()[0] : undefined;
      this.cached = row ? { repo: String(row.repo), branch: row.branch === null ? null : String(row.branch) } : null;
    }
    return this.cached;
  }

  /** The repository turns work on here and where it comes from: the room's own wins over its channel's. */
  view(): RepoResponse {
    const own = this.own();
    const inherited = own ? null : this.inherited();
    const link = own ?? inherited;
    if (!link) return { repo: null };
    return { repo: link.repo, branch: link.branch, provider: this.provider, source: own ? "room" : "channel", checkout: null };
  }

  /** One row written (an upsert on the single row). */
  set(link: RepoLink): void {
    this.table.make();
    this.storage.sql
      .exec(
        `INSERT INTO duet_repo (id, repo, branch) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET repo = excluded.repo, branch = excluded.branch`,
        link.repo,
        link.branch,
      )
      .toArray();
    this.cached = { ...link };
  }

  wipe(): void {
    if (this.table.exists()) this.storage.sql.exec(`DELETE FROM duet_repo`).toArray();
    this.cached = null;
  }
}
