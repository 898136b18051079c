import { HISTORY_KEEP } from "@duet/shared";
import { utf8Length } from "./sql-meter.ts";

type Row = Record<string, SqlStorageValue>;

/** One answered turn as the archive keeps it (text redacted, as the ledger stored it). */
export interface ArchivedTurn {
  seq: number;
  userId: string | null;
  userName: string | null;
  question: string;
  answer: string;
  /** When it was asked. */
  at: number;
  answeredAt: number;
  stopped?: boolean;
  scheduleId?: string | null;
}

/**
 * Turns per archived chunk: the history's 25 turns. The ledger keeps the
 * newest 25 shown turns in their rows, so the turns not yet archived (fewer
 * than a chunk) can always be read back from it after a restart; and one row
 * written per 25 turns is 0.04 a turn.
 */
export const CHUNK_TURNS = HISTORY_KEEP / 2;
/** Chunks read per search before the turns in them are ranked one by one: 8 x 25 turns. */
export const CHUNKS_SEARCHED = 8;
/** The best CHUNKS_SEARCHED chunks for the terms by bm25, among those with turns before the window. */
const SEARCH = `SELECT rowid FROM duet_recall WHERE duet_recall MATCH ? AND first_seq < ? ORDER BY bm25(duet_recall) LIMIT ${CHUNKS_SEARCHED}`;

/** A chunk's per-turn fields besides its text: [seq, userId, userName, at, answeredAt, question length, answer length, stopped, scheduleId]. */
type TurnMeta = [number, string | null, string | null, number, number, number, number, 0 | 1, string | null];

/** A chunk's turns, as one unit that never changes once written: ranking indexes its words once (memory/recall-rank.ts). */
export interface ArchivedChunk {
  readonly turns: readonly ArchivedTurn[];
}

/** Where a turn sits in the chunk it was read from or written into: kept on the turn under a symbol key, never serialised. */
const IN_CHUNK = Symbol("inChunk");
type Placed = ArchivedTurn & { [IN_CHUNK]?: { chunk: ArchivedChunk; at: number } };

/** The most turns a chunk's index holds, one bit each in a 32-bit word. */
const INDEXED_TURNS = 32;

/** The chunk `turn` belongs to and its place in it; undefined for a turn still waiting for a chunk. */
export function chunkOf(turn: ArchivedTurn): { chunk: ArchivedChunk; at: number } | undefined {
  return (turn as Placed)[IN_CHUNK];
}

/** Marks each of a chunk's turns with the chunk and its place (a copy of the list, so a later push cannot move them); a chunk too long for one bit per turn stays unmarked. */
export function placeInChunk(turns: ArchivedTurn[]): ArchivedTurn[] {
  if (turns.length > INDEXED_TURNS) return turns;
  const chunk: ArchivedChunk = { turns: turns.slice() };
  turns.forEach((t, at) => ((t as Placed)[IN_CHUNK] = { chunk, at }));
  return turns;
}

/**
 * Every shown turn's question and answer, searchable and pageable long after
 * its ledger row was reused, at a cost of one row written per CHUNK_TURNS
 * turns: turns wait in memory (and in their ledger rows) until a chunk is
 * full, then go into one FTS5 row (porter stemming, so "run" finds "runs")
 * holding their text once, with who, when and where each turn's text starts
 * beside it, unindexed. Search ranks chunks with bm25, then the turns in the
 * best chunks one by one (memory/recall-rank.ts); an archive of no more
 * chunks than a search reads is kept unpacked and its turns ranked whole.
 *
 * Bounded by the bytes of the text it holds (question, answer, speaker and
 * the fields beside them); past the bound the oldest chunks go first. FTS5's
 * index beside the text is not counted in the bound. The table is made with
 * the first chunk, so a room with fewer turns pays nothing.
 */
export class TurnArchive {
  /** Whether the table is there, looked up once per instance: only `write` makes it. */
  private made: boolean | undefined;
  /** The text held (what the bound counts) and the chunks holding it, read once per instance and kept in step by every write. */
  private held: { bytes: number; chunks: number } | undefined;
  /** Shown turns not yet in a chunk, oldest first; null until read back from the ledger after a wake. */
  private waiting: ArchivedTurn[] | null = null;
  /**
   * The chunks the last search found, unpacked, by rowid. A chunk never
   * changes once written (the oldest are deleted, the newest never reused
   * but by a wipe, which empties this), and a room's searches keep finding
   * the same few: each is read and unpacked once, not every turn, and its
   * turns stay the same objects (recall-rank.ts keeps their words).
   */
  private found = new Map<number, ArchivedTurn[]>();
  /**
   * Every chunk, unpacked, by rowid, while the archive holds no more than a
   * search reads (CHUNKS_SEARCHED): then every chunk is searched, and its
   * turns are ranked one by one as they are (recall-rank.ts), with no FTS5
   * query at all. Read once per instance and kept in step by every write;
   * null until read, and once the archive is larger.
   */
  private whole: Map<number, ArchivedTurn[]> | null = null;

  constructor(
    private readonly sql: SqlStorage,
    private readonly maxBytes: number,
    /** The newest shown turns in the ledger's rows, oldest first: where waiting turns are read back from after a wake. */
    private readonly ledgerTurns: () => ArchivedTurn[],
  ) {}

  private exists(): boolean {
    this.made ??= this.sql.exec(`SELECT 1 FROM sqlite_master WHERE name = 'duet_recall'`).toArray().length > 0;
    return this.made;
  }

  private holding(): { bytes: number; chunks: number } {
    if (this.held === undefined) {
      const r = this.exists() ? this.sql.exec<Row>(`SELECT coalesce(sum(bytes), 0) AS b, count(*) AS n FROM duet_recall`).one() : { b: 0, n: 0 };
      this.held = { bytes: Number(r.b), chunks: Number(r.n) };
    }
    return this.held;
  }

  private bytesHeld(): number {
    return this.holding().bytes;
  }

  /** The turns waiting for a chunk: after a wake, the ledger's shown turns newer than the newest archived one. */
  private pending(): ArchivedTurn[] {
    if (this.waiting) return this.waiting;
    const archived = this.exists() ? Number(this.sql.exec<Row>(`SELECT coalesce(max(last_seq), 0) AS s FROM duet_recall`).one().s) : 0;
    this.waiting = this.ledgerTurns().filter((t) => t.seq > archived);
    return this.waiting;
  }

  /** Whether the turn `seq` joining the history fills a chunk, so that `add` writes the chunk's row. */
  fills(seq: number): boolean {
    const waiting = this.pending();
    return waiting.length + (waiting.some((t) => t.seq === seq) ? 0 : 1) >= CHUNK_TURNS;
  }

  /**
   * A turn joined the history. Called inside the ledger's write of it: when
   * this fills a chunk, the chunk's one row is written in the same
   * transaction (and the oldest chunks dropped past the bound).
   */
  add(turn: ArchivedTurn): void {
    const waiting = this.pending();
    // Read back after a wake, the waiting turns may already hold this one (its row was written just before).
    if (!waiting.some((t) => t.seq === turn.seq)) waiting.push(turn);
    if (waiting.length < CHUNK_TURNS) return;
    this.write(waiting);
    this.waiting = [];
  }

  private write(turns: ArchivedTurn[]): void {
    if (!this.exists()) {
      this.sql.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS duet_recall USING fts5(
        text, turns UNINDEXED, first_seq UNINDEXED, last_seq UNINDEXED, bytes UNINDEXED, tokenize = 'porter unicode61')`);
      this.made = true;
    }
    const text = turns.map((t) => `${t.question}\n${t.answer}`).join("\n");
    const meta: TurnMeta[] = turns.map((t) => [t.seq, t.userId, t.userName, t.at, t.answeredAt, t.question.length, t.answer.length, t.stopped ? 1 : 0, t.scheduleId ?? null]);
    const json = JSON.stringify(meta);
    const bytes = utf8Length(text) + utf8Length(json);
    const seqs = turns.map((t) => t.seq);
    const held = this.holding();
    this.sql
      .exec(`INSERT INTO duet_recall (text, turns, first_seq, last_seq, bytes) VALUES (?, ?, ?, ?, ?)`, text, json, Math.min(...seqs), Math.max(...seqs), bytes)
      .toArray();
    this.held = { bytes: held.bytes + bytes, chunks: held.chunks + 1 };
    placeInChunk(turns);
    const over = this.held.bytes > this.maxBytes;
    if (!over && !this.whole) return;
    const id = Number(this.sql.exec<Row>(`SELECT last_insert_rowid() AS id`).one().id);
    // The in-memory copy keeps the very turn objects just archived, so a search returns the same objects the waiting list held.
    this.whole?.set(id, turns);
    if (this.held.chunks > CHUNKS_SEARCHED) this.whole = null;
    if (over) this.trim(id);
  }

  /** Drops the oldest chunks until the text held is within the bound; the chunk just added (`newest`) stays even when it alone is larger. */
  private trim(newest: number): void {
    let over = this.bytesHeld() - this.maxBytes;
    let upTo = 0;
    let dropped = 0;
    let chunks = 0;
    for (const r of this.sql.exec<Row>(`SELECT rowid, bytes FROM duet_recall WHERE rowid < ? ORDER BY rowid`, newest)) {
      if (over <= 0) break;
      upTo = Number(r.rowid);
      over -= Number(r.bytes);
      dropped += Number(r.bytes);
      chunks++;
    }
    if (!upTo) return;
    this.sql.exec(`DELETE FROM duet_recall WHERE rowid <= ?`, upTo).toArray();
    if (this.whole) for (const id of this.whole.keys()) if (id <= upTo) this.whole.delete(id);
    const held = this.holding();
    this.held = { bytes: held.bytes - dropped, chunks: held.chunks - chunks };
  }

  /**
   * The turns still waiting for a chunk and those of the chunks to rank for
   * `terms`, each older than `beforeSeq`: every chunk while the archive holds
   * no more than a search reads (there every match would be among the best,
   * and its turns are ranked one by one after, so no FTS5 query is asked),
   * else the chunks that best match (bm25). Each term is quoted, so whatever
   * a person typed is matched as words and never read as FTS syntax (quotes
   * inside are doubled, as FTS5 asks).
   */
  candidates(terms: string[], beforeSeq: number): ArchivedTurn[] {
    if (!terms.length) return [];
    const waiting = this.pending().filter((t) => t.seq < beforeSeq);
    if (!this.exists()) return waiting;
    const found: ArchivedTurn[] = [];
    if (this.holding().chunks <= CHUNKS_SEARCHED) {
      // Small enough to be searched whole: the turns that hold none of the terms are left out when ranked.
      for (const turns of this.everyChunk().values()) for (const t of turns) if (t.seq < beforeSeq) found.push(t);
    } else {
      const match = terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(" OR ");
      // The best chunks' ids only: the text of those already unpacked is not read again.
      const chunks = new Map<number, ArchivedTurn[]>();
      for (const r of this.sql.exec<Row>(SEARCH, match, beforeSeq)) {
        const id = Number(r.rowid);
        chunks.set(id, this.found.get(id) ?? this.whole?.get(id) ?? []);
      }
      this.whole = null;
      // Read after the search's cursor is done: one statement at a time.
      for (const [id, turns] of chunks) if (!turns.length) chunks.set(id, this.chunk(id));
      this.found = chunks;
      // A turn is written into one chunk, once, and stops waiting then: no turn is found twice.
      for (const turns of chunks.values()) for (const t of turns) if (t.seq < beforeSeq) found.push(t);
    }
    // The waiting turns, the newest, go last: ranking visits the candidates last first (recall-rank.ts).
    for (const t of waiting) found.push(t);
    return found;
  }

  /** Every chunk's turns by rowid, read once while the archive is small (see `whole`). */
  private everyChunk(): Map<number, ArchivedTurn[]> {
    this.whole ??= new Map(this.sql.exec<Row>(`SELECT rowid, text, turns FROM duet_recall`).toArray().map((c) => [Number(c.rowid), placeInChunk(unpack(c))]));
    return this.whole;
  }

  /** One chunk's turns, read by its rowid. */
  private chunk(id: number): ArchivedTurn[] {
    return placeInChunk(unpack(this.sql.exec<Row>(`SELECT text, turns FROM duet_recall WHERE rowid = ?`, id).one()));
  }

  /** The newest `limit` turns older than `beforeSeq`, oldest first: a page of the room's conversation further back than its history. */
  page(beforeSeq: number, limit: number): ArchivedTurn[] {
    const found = this.pending().filter((t) => t.seq < beforeSeq);
    const seen = new Set(found.map((t) => t.seq));
    if (this.exists()) {
      // Newest chunks first, only as many as the page needs (a late note may sit in a later chunk than its seq, hence first_seq).
      for (const c of this.newestFirst(beforeSeq)) {
        // Every chunk left holds only turns at or before this one's last: enough newer ones already make the page.
        if (found.filter((t) => t.seq > c.last).length >= limit) break;
        for (const t of c.turns()) if (t.seq < beforeSeq && !seen.has(t.seq)) found.push(t), seen.add(t.seq);
      }
    }
    return found.sort((a, b) => a.seq - b.seq).slice(-limit);
  }

  /** The chunks with a turn before `beforeSeq`, newest last turn first: from memory while the archive is small, else read as they are reached. */
  private *newestFirst(beforeSeq: number): Generator<{ last: number; turns: () => ArchivedTurn[] }> {
    if (this.holding().chunks <= CHUNKS_SEARCHED) {
      const chunks = [...this.everyChunk().values()].map((turns) => ({ first: seqBound(turns, Math.min), last: seqBound(turns, Math.max), turns: () => turns }));
      yield* chunks.filter((c) => c.first < beforeSeq).sort((a, b) => b.last - a.last);
      return;
    }
    for (const c of this.sql.exec<Row>(`SELECT text, turns, last_seq FROM duet_recall WHERE first_seq < ? ORDER BY last_seq DESC`, beforeSeq)) {
      yield { last: Number(c.last_seq), turns: () => unpack(c) };
    }
  }

  /** Text held now, in bytes (what the bound counts). */
  bytes(): number {
    return this.bytesHeld();
  }

  wipe(): void {
    if (this.exists()) this.sql.exec(`DELETE FROM duet_recall`).toArray();
    this.held = { bytes: 0, chunks: 0 };
    this.waiting = [];
    this.found.clear();
    this.whole = null;
  }
}

/** The least or greatest seq among a chunk's turns (its first_seq or last_seq). */
function seqBound(turns: ArchivedTurn[], pick: (...seqs: number[]) => number): number {
  return pick(...turns.map((t) => t.seq));
}

/** A chunk's turns, each with its text cut back out of the chunk's. */
function unpack(c: Row): ArchivedTurn[] {
  const text = String(c.text);
  const meta = JSON.parse(String(c.turns)) as TurnMeta[];
  let at = 0;
  return meta.map(([seq, userId, userName, asked, answeredAt, qLen, aLen, stopped, scheduleId]) => {
    const question = text.slice(at, at + qLen);
    const answer = text.slice(at + qLen + 1, at + qLen + 1 + aLen);
    at += qLen + aLen + 2;
    return { seq, userId, userName, question, answer, at: asked, answeredAt, ...(stopped ? { stopped: true } : {}), ...(scheduleId ? { scheduleId } : {}) };
  });
}
