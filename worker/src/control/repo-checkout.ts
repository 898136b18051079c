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
  /** sha256 of the `.duet/setup.sh` that last ran here (null: none ran). */
  setupSha: string | null;
  /** Whether this checkout's setup.sh was looked at (a turn does it, once per checkout). */
  setupChecked: boolean;
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
    this.table = new LazyTable(storage.sql, "duet_checkout", `id INTEGER PRIMARY KEY CHECK (id = 1), repo TEXT NOT NULL, linked TEXT, branch TEXT NOT NULL, sha TEXT NOT NULL, at INTEGER NOT NULL, setup_sha TEXT, setup_checked INTEGER NOT NULL DEFAULT 0`);
  }

  private read(): CheckoutRecord | null {
    if (this.cached === undefined) {
      const row = this.table.exists() ? this.storage.sql.exec<Row>(`SELECT repo, linked, branch, sha, at, setup_sha, setup_checked FROM duet_checkout WHERE id = 1`).toArray()[0] : undefined;
      this.cached = row
        ? {
            repo: String(row.repo),
            linked: row.linked === null ? null : String(row.linked),
            branch: String(row.branch),
            sha: String(row.sha),
            at: Number(row.at),
            setupSha: row.setup_sha === null ? null : String(row.setup_sha),
            setupChecked: Number(row.setup_checked) === 1,
          }
        : null;
    }
    return this.cached;
  }

  /** The checkout made for `link`, or null when there is none (or it was made for another). */
  of(link: RepoLink): CheckoutRecord | null {
    const held = this.read();
    return held && held.repo === link.repo && held.linked === link.branch ? held : null;
  }

  /** A checkout was made: its setup.sh is to be looked at again; the sha of the one that last ran is kept. */
  set(made: Omit<CheckoutRecord, "setupSha" | "setupChecked">): CheckoutRecord {
    const setupSha = this.read()?.setupSha ?? null;
    this.table.make();
    this.storage.sql
      .exec(
        `INSERT INTO duet_checkout (id, repo, linked, branch, sha, at, setup_sha, setup_checked) VALUES (1, ?, ?, ?, ?, ?, ?, 0)
         ON CONFLICT(id) DO UPDATE SET repo = excluded.repo, linked = excluded.linked, branch = excluded.branch, sha = excluded.sha, at = excluded.at, setup_checked = 0`,
        made.repo,
        made.linked,
        made.branch,
        made.sha,
        made.at,
        setupSha,
      )
      .toArray();
    this.cached = { ...made, setupSha, setupChecked: false };
    return this.cached;
  }

  /** The checkout's setup.sh was looked at: `ranSha` is the one handed to the turn to run, null when none was. */
  setupLooked(ranSha: string | null): void {
    const held = this.read();
    if (!held) return;
    const setupSha = ranSha ?? held.setupSha;
    this.storage.sql.exec(`UPDATE duet_checkout SET setup_sha = ?, setup_checked = 1 WHERE id = 1`, setupSha).toArray();
    this.cached = { ...held, setupSha, setupChecked: true };
  }

  /** The workspace was emptied: nothing is checked out. */
  wipe(): void {
    if (this.table.exists()) this.storage.sql.exec(`DELETE FROM duet_checkout`).toArray();
    this.cached = null;
  }
}
