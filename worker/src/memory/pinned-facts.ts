import { DuetError, FACTS_PER_ROOM, type MemoryResponse, type PinnedFact } from "@duet/shared";
import { LazyTable } from "../storage/lazy-table.ts";

type Row = Record<string, SqlStorageValue>;

/** Who pins a fact: the person's id, and their display name when the platform gave one. */
export interface Pinner {
  userId: string;
  userName?: string;
}

/**
 * The facts people pinned in a room (`/duet remember`), which the model reads
 * in every turn. One row per fact, in a table made by the first pin; read once
 * per instance and kept in step by every write, so a turn reads nothing. Facts
 * are numbered by their place in the list (1 is the oldest), as people see them.
 */
export class PinnedFacts {
  private cached: PinnedFact[] | undefined;
  private readonly table: LazyTable;

  constructor(private readonly sql: SqlStorage) {
    this.table = new LazyTable(sql, "duet_facts", "id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL, pinned_by TEXT NOT NULL, pinned_by_name TEXT, at INTEGER NOT NULL");
  }

  list(): PinnedFact[] {
    if (this.cached === undefined) {
      const rows = this.table.exists() ? this.sql.exec<Row>("SELECT text, pinned_by, pinned_by_name, at FROM duet_facts ORDER BY id").toArray() : [];
      this.cached = rows.map((r, i) => ({
        n: i + 1,
        text: String(r.text),
        pinnedBy: String(r.pinned_by),
        ...(r.pinned_by_name === null ? {} : { pinnedByName: String(r.pinned_by_name) }),
        at: Number(r.at),
      }));
    }
    return this.cached;
  }

  view(): MemoryResponse {
    return { facts: this.list(), max: FACTS_PER_ROOM };
  }

  /**
   * Pins `text` (already checked and redacted): one row. The same fact pinned
   * again is found, not pinned twice; a full room refuses with what to do.
   */
  pin(text: string, by: Pinner, at: number): { pinned: PinnedFact; already: boolean } {
    const have = this.list().find((f) => f.text.toLowerCase() === text.toLowerCase());
    if (have) return { pinned: have, already: true };
    if (this.list().length >= FACTS_PER_ROOM) {
      throw new DuetError("memory_full", `This room already keeps ${FACTS_PER_ROOM} facts, the most it can; forget one first (the memory command lists them)`);
    }
    this.table.make();
    this.sql.exec("INSERT INTO duet_facts (text, pinned_by, pinned_by_name, at) VALUES (?, ?, ?, ?)", text, by.userId, by.userName ?? null, at);
    const pinned: PinnedFact = { n: this.list().length + 1, text, pinnedBy: by.userId, ...(by.userName ? { pinnedByName: by.userName } : {}), at };
    this.cached = [...this.list(), pinned];
    return { pinned, already: false };
  }

  /** Forgets fact number `n` (one row deleted); the rest are numbered again. */
  forget(n: number): PinnedFact {
    const facts = this.list();
    const gone = facts[n - 1];
    if (!Number.isInteger(n) || !gone) {
      const range = facts.length ? `1 to ${facts.length}` : "none yet";
      throw new DuetError("not_found", `No fact number ${n} here (the room keeps ${range}; the memory command lists them)`);
    }
    // The n-th by pin order: its row is found by the same order the list was read in.
    this.sql.exec("DELETE FROM duet_facts WHERE id = (SELECT id FROM duet_facts ORDER BY id LIMIT 1 OFFSET ?)", n - 1);
    this.cached = facts.filter((_, i) => i !== n - 1).map((f, i) => ({ ...f, n: i + 1 }));
    return gone;
  }

  wipe(): void {
    if (this.table.exists()) this.sql.exec("DELETE FROM duet_facts");
    this.cached = [];
  }
}

/** One fact as the model reads it: "3. staging runs on port 8443 (pinned by Ada on 2026-03-02)". */
export function factLine(f: PinnedFact): string {
  const by = f.pinnedByName ? f.pinnedByName : `user ${f.pinnedBy}`;
  return `${f.n}. ${f.text} (pinned by ${by} on ${new Date(f.at).toISOString().slice(0, 10)})`;
}
