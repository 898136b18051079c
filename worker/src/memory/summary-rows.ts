import type { UsageEntry } from "../usage/usage-entries.ts";
import { LazyTable } from "../storage/lazy-table.ts";

type Row = Record<string, SqlStorageValue>;

/** What a room keeps of its rolling summary: the text, the last turn it covers, and what writing it cost. */
export interface StoredSummary {
  /** Null when there is none (never written, or wiped by a reset that kept the usage). */
  text: string | null;
  /** The newest turn the summary covers; turns after it, once out of the window, are summarised next. */
  throughSeq: number;
  at: number;
  /** The summary calls' usage over the last days, per day and model (what the room's usage and budgets count). */
  usage: UsageEntry[];
}

const NONE: StoredSummary = { text: null, throughSeq: 0, at: 0, usage: [] };

/**
 * A room's summary in one row of a table made by the first summary written,
 * so a room that never summarises writes nothing for it. Read once per
 * instance and kept in step by every write, so a turn reads nothing.
 */
export class SummaryRows {
  private cached: StoredSummary | undefined;
  private readonly table: LazyTable;

  constructor(private readonly sql: SqlStorage) {
    this.table = new LazyTable(sql, "duet_summary", "id INTEGER PRIMARY KEY CHECK (id = 1), text TEXT, through_seq INTEGER NOT NULL, at INTEGER NOT NULL, usage TEXT NOT NULL");
  }

  read(): StoredSummary {
    if (this.cached === undefined) {
      const [r] = this.table.exists() ? this.sql.exec<Row>("SELECT text, through_seq, at, usage FROM duet_summary WHERE id = 1").toArray() : [];
      this.cached = r
        ? { text: r.text === null ? null : String(r.text), throughSeq: Number(r.through_seq), at: Number(r.at), usage: JSON.parse(String(r.usage)) as UsageEntry[] }
        : NONE;
    }
    return this.cached;
  }

  /** The summary as it now stands: one row written (the table made first, the first time). */
  write(s: StoredSummary): void {
    this.table.make();
    this.sql.exec(
      `INSERT INTO duet_summary (id, text, through_seq, at, usage) VALUES (1, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET text = excluded.text, through_seq = excluded.through_seq, at = excluded.at, usage = excluded.usage`,
      s.text, s.throughSeq, s.at, JSON.stringify(s.usage),
    );
    this.cached = s;
  }

  /**
   * The conversation was emptied: nothing of it is covered any more. A
   * person's reset keeps the usage (a reset does not reset a budget) and, when
   * they kept the room's memory, the text; the room's deletion keeps nothing.
   */
  wipe(keep: { usage: boolean; text: boolean }): void {
    const have = this.read();
    if (have === NONE) return;
    if (!keep.usage) {
      this.sql.exec("DELETE FROM duet_summary");
      this.cached = NONE;
      return;
    }
    this.write({ ...have, text: keep.text ? have.text : null, throughSeq: 0 });
  }
}
