import { LazyTable } from "../storage/lazy-table.ts";
import type { RepoLink } from "./room-repo.ts";

type Row = Record<string, SqlStorageValue>;

/** The checkout in the room's workspace: for which link, the branch it resolved to, HEAD's sha and when it was made. */
export interface CheckoutRecord {
  repo: string;
  /** The branch as linked (null: the default). */
  linked: string | null;
  /** The branch checked out. */
  branch: string;
  sha: string;
  at: number;
}

/**
 * What `repo/` holds, as the room last made it: one row, written by each
 * checkout, in a table made by the first. A checkout counts for the link it
 * was made for only: linking another repository or branch makes the next turn
 * check out again.
 */
export class CheckoutStore {
  private cached: CheckoutRecord | null | undefined;
  private readonly table: LazyTable;

  constructor(private readonly storage: DurableObjectStorage) {
    this.table = new LazyTable(storage.sql, "duet_checkout", `id INTEGER PRIMARY KEY CHECK (id = 1), repo TEXT NOT NULL, linked TEXT, branch TEXT NOT NULL, sha TEXT NOT NULL, at INTEGER NOT NULL`);
  }

  private read(): CheckoutRecord | null {
    if (this.cached === undefined) {
      const row = this.table.exists() ? this.storage.sql.exec<Row>(`SELECT repo, linked, branch, sha, at FROM duet_checkout WHERE id = 1`).toArray()[0] : undefined;
      this.cached = row
        ? { repo: String(row.repo), linked: row.linked === null ? null : String(row.linked), branch: String(row.branch), sha: String(row.sha), at: Number(row.at) }
        : null;
    }
    return this.cached;
  }

  /** The checkout made for `link`, or null when there is none (or it was made for another). */
  of(link: RepoLink): CheckoutRecord | null {
    const held = this.read();
    return held && held.repo === link.repo && held.linked === link.branch ? held : null;
  }

  set(record: CheckoutRecord): void {
    this.table.make();
    this.storage.sql
      .exec(
        `INSERT INTO duet_checkout (id, repo, linked, branch, sha, at) VALUES (1, ?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET repo = excluded.repo, linked = excluded.linked, branch = excluded.branch, sha = excluded.sha, at = excluded.at`,
        record.repo,
        record.linked,
        record.branch,
        record.sha,
        record.at,
      )
      .toArray();
    this.cached = { ...record };
  }

  /** The workspace was emptied: nothing is checked out. */
  wipe(): void {
    if (this.table.exists()) this.storage.sql.exec(`DELETE FROM duet_checkout`).toArray();
    this.cached = null;
  }
}
