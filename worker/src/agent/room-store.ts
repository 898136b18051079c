import { HISTORY_KEEP, IDEMPOTENCY_TTL_MS, type DuetMessage, type RunResult } from "@duet/shared";

/** What an answered turn stores for replay: small, no history snapshot. */
export interface StoredAnswer {
  reply: string;
  explanation: string;
  runs: RunResult[];
  skipped?: string[];
}

export interface PendingTurn {
  id: string;
  idemKey: string | null;
  userId: string | null;
  text: string;
  receivedAt: number;
  /** Commands started before an interruption (issue: durable turns). */
  started: string | null;
}

type Row = Record<string, SqlStorageValue>;

/** A conversation turn (model, commands, history) or a direct command run (`/sandbox/exec`). */
export type TurnKind = "message" | "exec";

/**
 * The room's SQLite tables. History is one row per message, so writing the 50th
 * message costs the same as the first (the original rewrote the whole array).
 * Every statement binds its parameters; nothing is spliced into SQL.
 */
export class RoomStore {
  constructor(private readonly storage: DurableObjectStorage) {
    const sql = storage.sql;
    sql.exec(`CREATE TABLE IF NOT EXISTS duet_messages (
      id INTEGER PRIMARY KEY, role TEXT NOT NULL, user_id TEXT, text TEXT NOT NULL, ts INTEGER NOT NULL)`);
    sql.exec(`CREATE TABLE IF NOT EXISTS duet_turns (
      id TEXT PRIMARY KEY, idem_key TEXT UNIQUE, status TEXT NOT NULL, user_id TEXT, text TEXT NOT NULL,
      received_at INTEGER NOT NULL, started TEXT, answer TEXT, kind TEXT NOT NULL DEFAULT 'message')`);
    // Rooms created before direct runs were recorded lack the kind column.
    const columns = sql.exec<Row>(`PRAGMA table_info(duet_turns)`).toArray().map((c) => String(c.name));
    if (!columns.includes("kind")) sql.exec(`ALTER TABLE duet_turns ADD COLUMN kind TEXT NOT NULL DEFAULT 'message'`);
    sql.exec(`CREATE TABLE IF NOT EXISTS duet_children (room_id TEXT PRIMARY KEY)`);
    sql.exec(`CREATE TABLE IF NOT EXISTS duet_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  }

  private get sql() {
    return this.storage.sql;
  }

  /** Writes run to completion here (the cursor is drained), so their rows are counted at once. */
  private write(query: string, ...params: SqlStorageValue[]): void {
    this.sql.exec(query, ...params).toArray();
  }

  history(limit = HISTORY_KEEP): DuetMessage[] {
    const rows = this.sql
      .exec<Row>(`SELECT role, user_id, text, ts FROM duet_messages ORDER BY id DESC LIMIT ?`, limit)
      .toArray();
    return rows.reverse().map((r) => ({
      role: r.role as DuetMessage["role"],
      ...(r.user_id !== null ? { userId: String(r.user_id) } : {}),
      text: String(r.text),
      ts: Number(r.ts),
    }));
  }

  /** The stored answer for an idempotency key answered within the TTL, if any. */
  answered<T = StoredAnswer>(idemKey: string, now: number, kind: TurnKind = "message"): T | null {
    const row = this.sql
      .exec<Row>(
        `SELECT answer FROM duet_turns WHERE idem_key = ? AND kind = ? AND status = 'done' AND received_at > ?`,
        idemKey, kind, now - IDEMPOTENCY_TTL_MS,
      )
      .toArray()[0];
    return row?.answer ? (JSON.parse(String(row.answer)) as T) : null;
  }

  pendingByKey(idemKey: string, kind: TurnKind = "message"): PendingTurn | null {
    const row = this.sql
      .exec<Row>(`SELECT * FROM duet_turns WHERE idem_key = ? AND kind = ? AND status = 'pending'`, idemKey, kind)
      .toArray()[0];
    return row ? toPending(row) : null;
  }

  pendingTurns(kind: TurnKind = "message"): PendingTurn[] {
    return this.sql
      .exec<Row>(`SELECT * FROM duet_turns WHERE status = 'pending' AND kind = ? ORDER BY received_at`, kind)
      .toArray()
      .map(toPending);
  }

  /** Records an accepted turn before the model is called, so a crash cannot lose it silently. */
  recordPending(turn: PendingTurn, kind: TurnKind = "message"): void {
    this.write(
      `INSERT INTO duet_turns (id, idem_key, status, user_id, text, received_at, kind) VALUES (?, ?, 'pending', ?, ?, ?, ?)`,
      turn.id, turn.idemKey, turn.userId, turn.text, turn.receivedAt, kind,
    );
  }

  /** Stores a direct run's answer under its key (no history: direct runs are not conversation). */
  finishRun(turnId: string, answer: unknown): void {
    this.write(`UPDATE duet_turns SET status = 'done', answer = ? WHERE id = ?`, JSON.stringify(answer), turnId);
  }

  /** Notes the command about to run, so a restart knows its outcome is unknown. */
  markStarted(turnId: string, startedJson: string): void {
    this.write(`UPDATE duet_turns SET started = ? WHERE id = ?`, startedJson, turnId);
  }

  /** A turn that failed before it answered leaves nothing behind. */
  dropTurn(turnId: string): void {
    this.write(`DELETE FROM duet_turns WHERE id = ?`, turnId);
  }

  /** Writes both messages and the turn's outcome in one transaction: no half turn is ever visible. */
  commitTurn(turn: PendingTurn, userMsg: DuetMessage, agentMsg: DuetMessage, answer: StoredAnswer, now: number): void {
    this.storage.transactionSync(() => {
      this.insertMessage(userMsg);
      this.insertMessage(agentMsg);
      // Keep the newest HISTORY_KEEP rows: at steady state this deletes two rows per turn.
      this.write(`DELETE FROM duet_messages WHERE id <= (SELECT MAX(id) FROM duet_messages) - ?`, HISTORY_KEEP);
      if (turn.idemKey) {
        this.write(`UPDATE duet_turns SET status = 'done', answer = ?, started = NULL WHERE id = ?`, JSON.stringify(answer), turn.id);
      } else {
        this.write(`DELETE FROM duet_turns WHERE id = ?`, turn.id);
      }
      this.write(`DELETE FROM duet_turns WHERE status = 'done' AND received_at <= ?`, now - IDEMPOTENCY_TTL_MS);
    });
  }

  private insertMessage(m: DuetMessage): void {
    this.write(`INSERT INTO duet_messages (role, user_id, text, ts) VALUES (?, ?, ?, ?)`, m.role, m.userId ?? null, m.text, m.ts);
  }

  messageCount(): number {
    return Number(this.sql.exec<Row>(`SELECT COUNT(*) AS n FROM duet_messages`).one().n);
  }

  children(): string[] {
    return this.sql.exec<Row>(`SELECT room_id FROM duet_children ORDER BY room_id`).toArray().map((r) => String(r.room_id));
  }

  addChild(roomId: string): void {
    this.write(`INSERT OR IGNORE INTO duet_children (room_id) VALUES (?)`, roomId);
  }

  removeChild(roomId: string): void {
    this.write(`DELETE FROM duet_children WHERE room_id = ?`, roomId);
  }

  getMeta(key: string): string | null {
    const row = this.sql.exec<Row>(`SELECT value FROM duet_meta WHERE key = ?`, key).toArray()[0];
    return row ? String(row.value) : null;
  }

  setMeta(key: string, value: string): void {
    this.write(`INSERT OR REPLACE INTO duet_meta (key, value) VALUES (?, ?)`, key, value);
  }

  /**
   * Empties the room: history, turns and meta. Children are removed one by one as
   * they are cleaned (removeChild), so one that failed, or registered meanwhile, stays
   * listed for the next clean-up.
   */
  wipe(): void {
    this.storage.transactionSync(() => {
      for (const table of ["duet_messages", "duet_turns", "duet_meta"]) {
        this.write(`DELETE FROM ${table}`);
      }
    });
  }
}

function toPending(r: Row): PendingTurn {
  return {
    id: String(r.id),
    idemKey: r.idem_key === null ? null : String(r.idem_key),
    userId: r.user_id === null ? null : String(r.user_id),
    text: String(r.text),
    receivedAt: Number(r.received_at),
    started: r.started === null ? null : String(r.started),
  };
}
