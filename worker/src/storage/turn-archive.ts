import { utf8Length } from "./sql-meter.ts";

type Row = Record<string, SqlStorageValue>;

/** One answered turn as the archive keeps it (text redacted, as the ledger stored it). */
export interface ArchivedTurn {
  seq: number;
  userId: string | null;
  userName: string | null;
  question: string;
  answer: string;
  at: number;
}

/**
 * Every answered turn's question and answer, searchable long after its ledger
 * row was reused: an FTS5 table in the room's own SQLite (porter stemming, so
 * "run" finds "runs"). Bounded by the bytes of the text it holds (question,
 * answer and speaker); past the bound the oldest turns go first. The index
 * FTS5 keeps beside the text is not counted in the bound.
 *
 * Made on the first answer (a room that never answers pays nothing); the
 * bytes held are summed once per instance and kept in step by every write.
 */
export class TurnArchive {
  private made = false;
  private held: number | undefined;

  constructor(
    private readonly sql: SqlStorage,
    private readonly maxBytes: number,
  ) {}

  private exists(): boolean {
    this.made ||= this.sql.exec(`SELECT 1 FROM sqlite_master WHERE name = 'duet_recall'`).toArray().length > 0;
    return this.made;
  }

  private bytesHeld(): number {
    this.held ??= this.exists() ? Number(this.sql.exec<Row>(`SELECT coalesce(sum(bytes), 0) AS b FROM duet_recall`).one().b) : 0;
    return this.held;
  }

  /** Adds one answered turn (one FTS row; FTS5 writes its index rows beside it), then drops the oldest past the bound. */
  add(turn: ArchivedTurn): void {
    if (!this.exists()) {
      this.sql.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS duet_recall USING fts5(
        question, answer, seq UNINDEXED, user_id UNINDEXED, user_name UNINDEXED, at UNINDEXED, bytes UNINDEXED, tokenize = 'porter unicode61')`);
      this.made = true;
    }
    const bytes = utf8Length(turn.question) + utf8Length(turn.answer) + utf8Length(turn.userName ?? turn.userId ?? "");
    const held = this.bytesHeld();
    this.sql
      .exec(`INSERT INTO duet_recall (question, answer, seq, user_id, user_name, at, bytes) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        turn.question, turn.answer, turn.seq, turn.userId, turn.userName, turn.at, bytes)
      .toArray();
    this.held = held + bytes;
    if (this.held > this.maxBytes) this.trim(Number(this.sql.exec<Row>(`SELECT last_insert_rowid() AS id`).one().id));
  }

  /** Drops the oldest turns until the text held is within the bound; the turn just added (`newest`) stays even when it alone is larger. */
  private trim(newest: number): void {
    let over = this.bytesHeld() - this.maxBytes;
    let upTo = 0;
    let dropped = 0;
    for (const r of this.sql.exec<Row>(`SELECT rowid, bytes FROM duet_recall WHERE rowid < ? ORDER BY rowid`, newest)) {
      if (over <= 0) break;
      upTo = Number(r.rowid);
      over -= Number(r.bytes);
      dropped += Number(r.bytes);
    }
    if (!upTo) return;
    this.sql.exec(`DELETE FROM duet_recall WHERE rowid <= ?`, upTo).toArray();
    this.held = this.bytesHeld() - dropped;
  }

  /**
   * The turns that best match `terms` (bm25), older than `beforeSeq`, best
   * first. Each term is quoted, so whatever a person typed is matched as words
   * and never read as FTS syntax (quotes inside are doubled, as FTS5 asks).
   */
  search(terms: string[], beforeSeq: number, limit: number): ArchivedTurn[] {
    if (!terms.length || !this.exists()) return [];
    const match = terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(" OR ");
    return this.sql
      .exec<Row>(
        `SELECT seq, user_id, user_name, question, answer, at FROM duet_recall WHERE duet_recall MATCH ? AND seq < ? ORDER BY bm25(duet_recall) LIMIT ?`,
        match, beforeSeq, limit,
      )
      .toArray()
      .map((r) => ({
        seq: Number(r.seq),
        userId: r.user_id === null ? null : String(r.user_id),
        userName: r.user_name === null ? null : String(r.user_name),
        question: String(r.question),
        answer: String(r.answer),
        at: Number(r.at),
      }));
  }

  /** Text held now, in bytes (what the bound counts). */
  bytes(): number {
    return this.bytesHeld();
  }

  wipe(): void {
    if (this.exists()) this.sql.exec(`DELETE FROM duet_recall`).toArray();
    this.held = 0;
  }
}
