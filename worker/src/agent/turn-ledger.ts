import { HISTORY_KEEP, IDEMPOTENCY_TTL_MS, MODEL_CONTEXT_MESSAGES, type Attachment, type DuetMessage, type PendingApproval, type RunResult } from "@duet/shared";
import { LedgerIndex, type SlotStatus } from "./ledger-index.ts";

/** A conversation turn (model, commands, history) or a direct command run (`/sandbox/exec`). */
export type TurnKind = "message" | "exec";

/** A turn the ledger accepted: where its row is, and what was asked. */
export interface LedgerTurn {
  /** The row holding it; rows are reused once their turn has aged out. */
  slot: number;
  /** Arrival order, never reused: it tells a turn from a later one in the same slot. */
  seq: number;
  kind: TurnKind;
  idemKey: string | null;
  userId: string | null;
  /** The person's text (redacted), or a direct run's command (redacted). */
  question: string;
  receivedAt: number;
  /** Set while commands run: the model's text and the commands finished (see turn.ts Progress). */
  progress: string | null;
}

/** What an answered message turn stores for replay and history. */
export interface StoredAnswer {
  reply: string;
  explanation: string;
  runs: RunResult[];
  skipped?: string[];
  /** Someone stopped the turn: this is what was written and run before. */
  stopped?: boolean;
  /** Under `approve`: the commands proposed instead of run. */
  pending?: PendingApproval[];
  /** Workspace files the model attached (`<attach>`), found after the commands ran. */
  attachments?: Attachment[];
}

/** An answered message turn as the model's context is built from it. */
export interface AnsweredTurn extends StoredAnswer {
  seq: number;
  userId: string | null;
  question: string;
  receivedAt: number;
  /** The model's own text, <run> tags included, redacted; null for turns stored before it was kept. */
  modelText: string | null;
  answeredAt: number;
}

/** Message turns shown as history: each is a user message and an agent message. */
const HISTORY_TURNS = HISTORY_KEEP / 2;
/** Answered turns the model's context is built from; the ledger keeps these in memory. */
const CONTEXT_TURNS = MODEL_CONTEXT_MESSAGES / 2;

type Row = Record<string, SqlStorageValue>;

const str = (v: SqlStorageValue) => (v === null ? null : String(v));

/**
 * The room's turns, one row each: the question is written when the turn is
 * accepted and the answer into the same row when it is answered, so a turn
 * costs two rows written (plus one per command, marked before it starts). The
 * history is read from these rows. A row whose turn is out of the history and
 * past the replay window is reused by the next turn (an UPDATE, not a DELETE
 * and an INSERT). No index: each one would add a row written per change, and
 * the table holds only the last 25 turns plus those a retry may still replay.
 *
 * A turn reads nothing back: the rows' states (LedgerIndex), the history and
 * the turns the model's context is built from are read once per wake and then
 * kept in step by the ledger's own writes, so a turn costs its writes only.
 */
export class TurnLedger {
  private nextSeq: number;
  private readonly index = new LedgerIndex(HISTORY_TURNS);
  /**
   * The history (as messages) and the newest CONTEXT_TURNS answered turns, each
   * read once, then kept in step by answer() and wipe(): the queue answers
   * turns in arrival order, so each answer goes at the end.
   */
  private shown: DuetMessage[] | null = null;
  /**
   * Each message of `shown` as JSON, written once when it joins: every answer
   * carries the whole history, and serialising its 50 messages again per turn
   * was a measurable share of a turn's CPU.
   */
  private shownJson: string[] = [];
  private recent: AnsweredTurn[] | null = null;

  constructor(private readonly storage: DurableObjectStorage) {
    const sql = storage.sql;
    sql.exec(`CREATE TABLE IF NOT EXISTS duet_ledger (
      slot INTEGER PRIMARY KEY, seq INTEGER NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL,
      idem_key TEXT, user_id TEXT, question TEXT NOT NULL, received_at INTEGER NOT NULL,
      progress TEXT, model_text TEXT, reply TEXT, answer TEXT, answered_at INTEGER)`);
    storage.transactionSync(() => migrateMessageRows(sql));
    for (const r of sql.exec<Row>(`SELECT slot, seq, kind, status, idem_key, received_at FROM duet_ledger`)) {
      this.index.set(Number(r.slot), {
        seq: Number(r.seq),
        kind: String(r.kind) as TurnKind,
        status: String(r.status) as SlotStatus,
        idemKey: str(r.idem_key),
        receivedAt: Number(r.received_at),
      });
    }
    this.nextSeq = this.index.maxSeq() + 1;
  }

  private get sql() {
    return this.storage.sql;
  }

  /** Writes run to completion here (the cursor is drained), so their rows are counted at once. */
  private write(query: string, ...params: SqlStorageValue[]): void {
    this.sql.exec(query, ...params).toArray();
  }

  /** Records an accepted turn before any work starts, so an eviction cannot lose it: one row written. */
  accept(turn: Omit<LedgerTurn, "slot" | "seq" | "progress">, now = Date.now()): LedgerTurn {
    const seq = this.nextSeq++;
    let slot = this.index.reusable(now);
    const values = [seq, turn.kind, turn.idemKey, turn.userId, turn.question, turn.receivedAt];
    if (slot === null) {
      const row = this.sql
        .exec<Row>(
          `INSERT INTO duet_ledger (seq, kind, status, idem_key, user_id, question, received_at)
           VALUES (?, ?, 'pending', ?, ?, ?, ?) RETURNING slot`,
          ...values,
        )
        .one();
      slot = Number(row.slot);
    } else {
      this.write(
        `UPDATE duet_ledger SET seq = ?, kind = ?, status = 'pending', idem_key = ?, user_id = ?, question = ?,
         received_at = ?, progress = NULL, model_text = NULL, reply = NULL, answer = NULL, answered_at = NULL
         WHERE slot = ?`,
        ...values, slot,
      );
    }
    this.index.set(slot, { seq, kind: turn.kind, status: "pending", idemKey: turn.idemKey, receivedAt: turn.receivedAt });
    return { ...turn, slot, seq, progress: null };
  }

  /** A place in the history for something recorded later (a decision waiting in the queue behind turns accepted after it). */
  reserveSeq(): number {
    return this.nextSeq++;
  }

  /**
   * A message turn answered as it is recorded (a person's decision on a
   * proposed command, and its output): one row written, and it joins the
   * history. Called from the room's queue, like answer(), with the place
   * reserved when the decision was queued.
   */
  note(turn: { userId: string | null; question: string; receivedAt: number }, answer: StoredAnswer, now = Date.now(), seq = this.reserveSeq()): void {
    let slot = this.index.reusable(now);
    const { reply, ...rest } = answer;
    const values = [seq, turn.userId, turn.question, turn.receivedAt, reply, JSON.stringify(rest), now];
    if (slot === null) {
      const row = this.sql
        .exec<Row>(
          `INSERT INTO duet_ledger (seq, kind, status, user_id, question, received_at, reply, answer, answered_at)
           VALUES (?, 'message', 'done', ?, ?, ?, ?, ?, ?) RETURNING slot`,
          ...values,
        )
        .one();
      slot = Number(row.slot);
    } else {
      this.write(
        `UPDATE duet_ledger SET seq = ?, kind = 'message', status = 'done', idem_key = NULL, user_id = ?, question = ?,
         received_at = ?, progress = NULL, model_text = NULL, reply = ?, answer = ?, answered_at = ? WHERE slot = ?`,
        ...values, slot,
      );
    }
    this.index.set(slot, { seq, kind: "message", status: "done", idemKey: null, receivedAt: turn.receivedAt });
    this.keep({ ...rest, reply, seq, userId: turn.userId, question: turn.question, receivedAt: turn.receivedAt, modelText: null, answeredAt: now });
  }

  /** Notes the command about to run (with the model's text), so a restart knows its outcome is unknown. */
  markStarted(turn: LedgerTurn, progress: string): void {
    turn.progress = progress;
    this.write(`UPDATE duet_ledger SET progress = ? WHERE slot = ? AND seq = ?`, progress, turn.slot, turn.seq);
  }

  /** Stores a message turn's answer; the row joins the history. The in-flight progress is dropped. */
  answer(turn: LedgerTurn, answer: StoredAnswer, modelText: string, now = Date.now()): void {
    const { reply, ...rest } = answer;
    this.write(
      `UPDATE duet_ledger SET status = 'done', progress = NULL, model_text = ?, reply = ?, answer = ?, answered_at = ?
       WHERE slot = ? AND seq = ?`,
      modelText, reply, JSON.stringify(rest), now, turn.slot, turn.seq,
    );
    this.index.update(turn.slot, turn.seq, { status: "done" });
    const { seq, userId, question, receivedAt } = turn;
    this.keep({ ...rest, reply, seq, userId, question, receivedAt, modelText, answeredAt: now });
  }

  /**
   * Keeps the history and the model's context as read in step with a newly
   * answered turn: called in the queue's order, which is the rows' order.
   */
  private keep(turn: AnsweredTurn): void {
    if (this.shown) {
      const added = messagesOf(turn.userId, turn.question, turn.receivedAt, turn.reply, turn.answeredAt, turn.stopped === true);
      this.shown.push(...added);
      this.shownJson.push(...added.map((m) => JSON.stringify(m)));
      if (this.shown.length > HISTORY_KEEP) {
        this.shown.splice(0, this.shown.length - HISTORY_KEEP);
        this.shownJson.splice(0, this.shownJson.length - HISTORY_KEEP);
      }
    }
    if (this.recent) {
      this.recent.push(turn);
      if (this.recent.length > CONTEXT_TURNS) this.recent.shift();
    }
  }

  /** Stores a direct run's answer (any JSON) for replay; direct runs are not history. */
  finishRun(turn: LedgerTurn, outcome: unknown, now = Date.now()): void {
    this.write(
      `UPDATE duet_ledger SET status = 'done', answer = ?, answered_at = ? WHERE slot = ? AND seq = ?`,
      JSON.stringify(outcome), now, turn.slot, turn.seq,
    );
    this.index.update(turn.slot, turn.seq, { status: "done" });
  }

  /** A turn that failed before it answered leaves nothing behind: its row is free for the next turn. */
  drop(turn: LedgerTurn): void {
    this.write(
      `UPDATE duet_ledger SET status = 'free', idem_key = NULL, user_id = NULL, question = '', progress = NULL
       WHERE slot = ? AND seq = ?`,
      turn.slot, turn.seq,
    );
    this.index.update(turn.slot, turn.seq, { status: "free", idemKey: null });
  }

  /** Turns accepted and not answered, oldest first: after a restart, these were cut off. */
  pending(kind: TurnKind): LedgerTurn[] {
    return this.sql
      .exec<Row>(`SELECT * FROM duet_ledger WHERE status = 'pending' AND kind = ? ORDER BY seq`, kind)
      .toArray()
      .map(toTurn);
  }

  pendingByKey(kind: TurnKind, idemKey: string): LedgerTurn | null {
    const row = this.sql
      .exec<Row>(`SELECT * FROM duet_ledger WHERE status = 'pending' AND kind = ? AND idem_key = ?`, kind, idemKey)
      .toArray()[0];
    return row ? toTurn(row) : null;
  }

  /** The stored answer for a key answered within the TTL: a message's StoredAnswer or a direct run's outcome. */
  answered<T = StoredAnswer>(kind: TurnKind, idemKey: string, now = Date.now()): T | null {
    const slot = this.index.byKey(kind, "done", idemKey, now - IDEMPOTENCY_TTL_MS);
    if (slot === null) return null;
    const row = this.sql.exec<Row>(`SELECT reply, answer FROM duet_ledger WHERE slot = ?`, slot).one();
    const answer = JSON.parse(String(row.answer)) as T;
    return kind === "message" ? ({ reply: String(row.reply), ...answer } as T) : answer;
  }

  /** The newest answered message turns, oldest first, with the model's own text and each command's result. */
  recentTurns(limit = HISTORY_TURNS): AnsweredTurn[] {
    if (limit <= CONTEXT_TURNS) {
      this.recent ??= this.readTurns(CONTEXT_TURNS);
      return limit > 0 ? this.recent.slice(-limit) : [];
    }
    return this.readTurns(limit);
  }

  private readTurns(limit: number): AnsweredTurn[] {
    return this.sql
      .exec<Row>(
        `SELECT seq, user_id, question, received_at, model_text, reply, answer, answered_at FROM duet_ledger
         WHERE kind = 'message' AND status = 'done' ORDER BY seq DESC LIMIT ?`,
        limit,
      )
      .toArray()
      .reverse()
      .map((r) => ({
        ...(JSON.parse(String(r.answer)) as Omit<StoredAnswer, "reply">),
        seq: Number(r.seq),
        userId: str(r.user_id),
        question: String(r.question),
        receivedAt: Number(r.received_at),
        modelText: str(r.model_text),
        reply: String(r.reply),
        answeredAt: Number(r.answered_at),
      }));
  }

  /** The room's history (last 50 messages): each answered turn as the person's message and Duet's reply. */
  history(): DuetMessage[] {
    return this.shownMessages().slice();
  }

  /** The history as JSON text: equal to JSON.stringify(history()), from each message's JSON kept since it joined. */
  historyJson(): string {
    this.shownMessages();
    return `[${this.shownJson.join(",")}]`;
  }

  private shownMessages(): DuetMessage[] {
    if (this.shown) return this.shown;
    this.shown = this.sql
      .exec<Row>(
        `SELECT user_id, question, received_at, reply, answered_at, json_extract(answer, '$.stopped') AS stopped FROM duet_ledger
         WHERE kind = 'message' AND status = 'done' ORDER BY seq DESC LIMIT ?`,
        HISTORY_TURNS,
      )
      .toArray()
      .reverse()
      .flatMap((r) => messagesOf(str(r.user_id), String(r.question), Number(r.received_at), String(r.reply), Number(r.answered_at), Boolean(r.stopped)));
    this.shownJson = this.shown.map((m) => JSON.stringify(m));
    return this.shown;
  }

  messageCount(): number {
    return this.history().length;
  }

  /** Empties the ledger: history, pending turns and stored answers. */
  wipe(): void {
    this.write(`DELETE FROM duet_ledger`);
    this.index.clear();
    this.shown = [];
    this.shownJson = [];
    this.recent = [];
  }
}

function messagesOf(userId: string | null, question: string, receivedAt: number, reply: string, answeredAt: number, stopped: boolean): DuetMessage[] {
  // Literals rather than spreads: built for every answered turn (keys in the order the API has always sent them).
  return [
    userId !== null ? { role: "user", userId, text: question, ts: receivedAt } : { role: "user", text: question, ts: receivedAt },
    stopped ? { role: "agent", text: reply, ts: answeredAt, stopped: true } : { role: "agent", text: reply, ts: answeredAt },
  ];
}

function toTurn(r: Row): LedgerTurn {
  return {
    slot: Number(r.slot),
    seq: Number(r.seq),
    kind: String(r.kind) as TurnKind,
    idemKey: str(r.idem_key),
    userId: str(r.user_id),
    question: String(r.question),
    receivedAt: Number(r.received_at),
    progress: str(r.progress),
  };
}

/**
 * Rooms written before the ledger kept one row per message (duet_messages)
 * and their turns apart (duet_turns). Their history becomes turn rows, once:
 * each user message with the agent message after it.
 */
function migrateMessageRows(sql: SqlStorage): void {
  const legacy = sql.exec<Row>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'duet_messages'`).toArray();
  if (!legacy.length) return;
  const messages = sql.exec<Row>(`SELECT role, user_id, text, ts FROM duet_messages ORDER BY id`).toArray();
  let seq = 0;
  for (let i = 0; i + 1 < messages.length; i++) {
    const [q, a] = [messages[i], messages[i + 1]];
    if (q.role !== "user" || a.role !== "agent") continue;
    sql.exec(
      `INSERT INTO duet_ledger (seq, kind, status, user_id, question, received_at, reply, answer, answered_at)
       VALUES (?, 'message', 'done', ?, ?, ?, ?, ?, ?)`,
      ++seq, q.user_id, q.text, q.ts, a.text, JSON.stringify({ explanation: a.text, runs: [] }), a.ts,
    );
    i++;
  }
  sql.exec(`DROP TABLE duet_messages`);
  sql.exec(`DROP TABLE IF EXISTS duet_turns`);
}
