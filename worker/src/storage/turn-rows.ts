import { HISTORY_KEEP, IDEMPOTENCY_TTL_MS } from "@duet/shared";
import { LedgerIndex, type SlotStatus } from "./ledger-index.ts";
import { DELIVERY_COLUMNS } from "./delivery-rows.ts";
import { addColumns, migrateMessageRows } from "./ledger-migration.ts";
import { scheduleOfKey } from "./schedule-run-key.ts";
import type { AnsweredTurn, HistoryNote, LedgerTurn, StoredAnswer, TurnKind } from "./turn-types.ts";
import { USAGE_COLUMNS, UsageRows } from "./usage-rows.ts";
import type { UsageTotals } from "../usage/usage-entries.ts";

/** Answered turns shown as history: each is a user message and an agent message. */
export const HISTORY_TURNS = HISTORY_KEEP / 2;

type Row = Record<string, SqlStorageValue>;

/** Columns added after the first rooms' tables were made: a new table has them, an older one gets them once (ledger-migration.ts). */
const LATER_COLUMNS: Readonly<Record<string, string>> = { user_name: "TEXT", claimant: "TEXT", ...DELIVERY_COLUMNS, ...USAGE_COLUMNS };

const str = (v: SqlStorageValue) => (v === null ? null : String(v));

/** The columns `place` binds, in order; the row's status is written into the statement (one of three words, not worth binding). */
const COLUMNS = ["seq", "kind", "idem_key", "user_id", "user_name", "question", "received_at", "progress", "model_text", "reply", "answer", "answered_at", "deliver", "claimant", "usage_carry"] as const;
type RowValues = Record<(typeof COLUMNS)[number], SqlStorageValue>;
/** A whole row into a new slot, or over a reused one, for each status a row is placed in. */
const PLACE = Object.fromEntries(
  (["pending", "done"] as const).map((status) => [
    status,
    {
      insert: `INSERT INTO duet_ledger (status, ${COLUMNS.join(", ")}) VALUES ('${status}', ${COLUMNS.map(() => "?").join(", ")}) RETURNING slot`,
      update: `UPDATE duet_ledger SET status = '${status}', ${COLUMNS.map((c) => `${c} = ?`).join(", ")} WHERE slot = ?`,
    },
  ]),
) as Record<"pending" | "done", { insert: string; update: string }>;

/** A row that is history: answered, with a reply (a message turn, a note, or a direct run that joined the history). */
const SHOWN = `status = 'done' AND reply IS NOT NULL`;

/**
 * The room's turns as SQLite rows, one each: the question is written when the
 * turn is accepted and the answer into the same row when it is answered, so a
 * turn costs two rows written (plus one per command, marked before it
 * starts). A row whose turn is out of the history and past the replay window
 * is reused by the next turn (an UPDATE, not a DELETE and an INSERT). No
 * index: each one would add a row written per change, and the table holds
 * only the last 25 shown turns plus those a retry may still replay. The rows'
 * states are kept in memory (LedgerIndex), read once per wake.
 */
export class TurnRows {
  private nextSeq: number;
  private readonly index = new LedgerIndex(HISTORY_TURNS);
  private readonly usage: UsageRows;

  constructor(private readonly storage: DurableObjectStorage) {
    const sql = storage.sql;
    sql.exec(`CREATE TABLE IF NOT EXISTS duet_ledger (
      slot INTEGER PRIMARY KEY, seq INTEGER NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL,
      idem_key TEXT, user_id TEXT, question TEXT NOT NULL, received_at INTEGER NOT NULL,
      progress TEXT, model_text TEXT, reply TEXT, answer TEXT, answered_at INTEGER,
      ${Object.entries(LATER_COLUMNS).map(([name, type]) => `${name} ${type}`).join(", ")})`);
    storage.transactionSync(() => {
      migrateMessageRows(sql);
      addColumns(sql, LATER_COLUMNS);
    });
    this.usage = new UsageRows(sql);
    for (const r of sql.exec<Row>(`SELECT slot, seq, kind, status, idem_key, received_at, reply IS NOT NULL AS shown, claimant FROM duet_ledger`)) {
      this.index.set(Number(r.slot), {
        seq: Number(r.seq),
        kind: String(r.kind) as TurnKind,
        status: String(r.status) as SlotStatus,
        idemKey: str(r.idem_key),
        receivedAt: Number(r.received_at),
        shown: Boolean(r.shown),
        claimant: str(r.claimant),
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

  /** A whole row, into a reusable slot (an UPDATE) or a new one (an INSERT): one row written either way. */
  private place(status: "pending" | "done", given: Omit<RowValues, "usage_carry">, now: number): number {
    const slot = this.index.reusable(now);
    // The usage rollup rides along in the row written anyway, with the turn leaving a reused row added to it.
    const v: RowValues = { ...given, usage_carry: this.usage.carryInto(slot, now) };
    const values = COLUMNS.map((c) => v[c]);
    if (slot === null) return Number(this.sql.exec<Row>(PLACE[status].insert, ...values).one().slot);
    this.write(PLACE[status].update, ...values, slot);
    return slot;
  }

  /** Records an accepted turn before any work starts, so an eviction cannot lose it: one row written. */
  accept(turn: Omit<LedgerTurn, "slot" | "seq" | "progress">, now = Date.now()): LedgerTurn {
    const seq = this.nextSeq++;
    const slot = this.place(
      "pending",
      { seq, kind: turn.kind, idem_key: turn.idemKey, user_id: turn.userId, user_name: turn.userName ?? null, question: turn.question, received_at: turn.receivedAt,
        progress: null, model_text: null, reply: null, answer: null, answered_at: null, deliver: turn.deliver ?? null, claimant: turn.claimant ?? null },
      now,
    );
    this.index.set(slot, { seq, kind: turn.kind, status: "pending", idemKey: turn.idemKey, receivedAt: turn.receivedAt, shown: false, claimant: turn.claimant ?? null });
    return { ...turn, slot, seq, progress: null };
  }

  /** A place in the history for something recorded later (a decision waiting in the queue behind turns accepted after it). */
  reserveSeq(): number {
    return this.nextSeq++;
  }

  /** A note recorded answered at once (one row written), at `seq` when its place was reserved earlier. */
  note(note: HistoryNote, seq: number, now: number): AnsweredTurn {
    const { reply, runs } = note;
    const slot = this.place(
      "done",
      { seq, kind: "message", idem_key: null, user_id: note.userId, user_name: null, question: note.question, received_at: note.at,
        progress: null, model_text: null, reply, answer: JSON.stringify({ explanation: "", runs }), answered_at: now, deliver: null, claimant: null },
      now,
    );
    this.index.set(slot, { seq, kind: "message", status: "done", idemKey: null, receivedAt: note.at, shown: true, claimant: null });
    return { reply, explanation: "", runs, seq, userId: note.userId, question: note.question, receivedAt: note.at, modelText: null, answeredAt: now };
  }

  /**
   * An answer kept only for a bot to post, outside the history (its reply in
   * `answer`, the row's own reply left empty): one row written. A retry of its
   * key is answered from it, so it is posted once.
   */
  keep(turn: Omit<LedgerTurn, "slot" | "seq" | "progress">, answer: StoredAnswer, now: number): void {
    const seq = this.nextSeq++;
    const slot = this.place(
      "done",
      { seq, kind: "message", idem_key: turn.idemKey, user_id: turn.userId, user_name: turn.userName ?? null, question: turn.question, received_at: turn.receivedAt,
        progress: null, model_text: null, reply: null, answer: JSON.stringify(answer), answered_at: now, deliver: turn.deliver ?? null, claimant: turn.claimant ?? null },
      now,
    );
    this.index.set(slot, { seq, kind: "message", status: "done", idemKey: turn.idemKey, receivedAt: turn.receivedAt, shown: false, claimant: turn.claimant ?? null });
  }

  /** Stores a turn's progress (redacted) before its next command starts, so a restart knows where it was. */
  markStarted(turn: LedgerTurn, progress: string): void {
    turn.progress = progress;
    this.write(`UPDATE duet_ledger SET progress = ? WHERE slot = ? AND seq = ?`, progress, turn.slot, turn.seq);
  }

  /**
   * Stores a message turn's answer; the row joins the history. The in-flight
   * progress is dropped. `posted`: the message a bot posted for it while it
   * ran (kept with the answer, so it costs no row of its own).
   */
  answer(turn: LedgerTurn, answer: StoredAnswer, modelText: string | null, now: number, posted: string | null = null): AnsweredTurn {
    const { reply, ...rest } = answer;
    this.write(
      `UPDATE duet_ledger SET status = 'done', progress = NULL, model_text = ?, reply = ?, answer = ?, answered_at = ?, posted = COALESCE(?, posted)
       WHERE slot = ? AND seq = ?`,
      modelText, reply, JSON.stringify(rest), now, posted, turn.slot, turn.seq,
    );
    this.index.update(turn.slot, turn.seq, { status: "done", shown: true });
    if (answer.usage) this.usage.answered(turn.slot, { userId: turn.userId, userName: turn.userName ?? null, at: now, usage: answer.usage });
    const { seq, userId, userName, question, receivedAt } = turn;
    return { ...rest, reply, seq, userId, userName: userName ?? null, question, receivedAt, modelText, answeredAt: now, scheduleId: scheduleOfKey(turn.idemKey) };
  }

  /**
   * Stores a keyed direct run's outcome as the note the history shows (its
   * question becomes the note's, e.g. `Run: ls`): one row written, and a
   * retry of its key is answered from it.
   */
  finishRun(turn: LedgerTurn, note: HistoryNote, now: number): AnsweredTurn {
    const { question, reply, runs } = note;
    this.write(
      `UPDATE duet_ledger SET status = 'done', progress = NULL, question = ?, reply = ?, answer = ?, answered_at = ? WHERE slot = ? AND seq = ?`,
      question, reply, JSON.stringify({ explanation: "", runs }), now, turn.slot, turn.seq,
    );
    this.index.update(turn.slot, turn.seq, { status: "done", shown: true });
    return { reply, explanation: "", runs, seq: turn.seq, userId: turn.userId, question, receivedAt: turn.receivedAt, modelText: null, answeredAt: now };
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

  /** The stored answer for a key answered within the TTL. A direct run answered before runs joined the history holds its outcome instead. */
  answered(kind: TurnKind, idemKey: string, now = Date.now()): StoredAnswer | null {
    const slot = this.index.byKey(kind, "done", idemKey, now - IDEMPOTENCY_TTL_MS);
    if (slot === null) return null;
    const row = this.sql.exec<Row>(`SELECT reply, answer FROM duet_ledger WHERE slot = ?`, slot).one();
    const answer = JSON.parse(String(row.answer)) as StoredAnswer;
    return row.reply === null ? answer : { ...answer, reply: String(row.reply) };
  }

  /**
   * Who asked first with a key still running or answered within the TTL (a
   * delivery's claimant; null when it asked without one), or undefined when
   * the key is not known. Kept in the turn's row, so a new instance after an
   * eviction still tells the first delivery's retry from a second delivery.
   */
  claimantOf(kind: TurnKind, idemKey: string, now = Date.now()): string | null | undefined {
    const slot = this.index.byKey(kind, "pending", idemKey) ?? this.index.byKey(kind, "done", idemKey, now - IDEMPOTENCY_TTL_MS);
    return slot === null ? undefined : this.index.get(slot)?.claimant;
  }

  /** The newest `limit` shown turns, oldest first, with the model's own text and each command's result. */
  shownTurns(limit: number): AnsweredTurn[] {
    return this.sql
      .exec<Row>(
        `SELECT seq, user_id, user_name, question, received_at, model_text, reply, answer, answered_at, idem_key FROM duet_ledger
         WHERE ${SHOWN} ORDER BY seq DESC LIMIT ?`,
        limit,
      )
      .toArray()
      .reverse()
      .map((r) => ({
        ...(JSON.parse(String(r.answer)) as Omit<StoredAnswer, "reply">),
        seq: Number(r.seq),
        userId: str(r.user_id),
        userName: str(r.user_name),
        question: String(r.question),
        receivedAt: Number(r.received_at),
        modelText: str(r.model_text),
        reply: String(r.reply),
        answeredAt: Number(r.answered_at),
        scheduleId: scheduleOfKey(str(r.idem_key)),
      }));
  }

  /** What the history shows of its newest turns (no model text, no runs), oldest first. */
  shownLines(): { seq: number; userId: string | null; userName: string | null; question: string; receivedAt: number; reply: string; answeredAt: number; stopped: boolean; scheduleId: string | null }[] {
    return this.sql
      .exec<Row>(
        `SELECT seq, user_id, user_name, question, received_at, reply, answered_at, json_extract(answer, '$.stopped') AS stopped, idem_key FROM duet_ledger
         WHERE ${SHOWN} ORDER BY seq DESC LIMIT ?`,
        HISTORY_TURNS,
      )
      .toArray()
      .reverse()
      .map((r) => ({
        seq: Number(r.seq),
        userId: str(r.user_id),
        userName: str(r.user_name),
        question: String(r.question),
        receivedAt: Number(r.received_at),
        reply: String(r.reply),
        answeredAt: Number(r.answered_at),
        stopped: Boolean(r.stopped),
        scheduleId: scheduleOfKey(str(r.idem_key)),
      }));
  }

  /** Model usage over the last days (each answered turn's, and the rollup of those whose rows were reused). */
  usageTotals(now = Date.now()): UsageTotals {
    return this.usage.totals(now);
  }

  /**
   * Empties the table: history, pending turns and stored answers. A person's
   * reset (`keepUsage`) keeps the usage, in one free row, so budgets still hold.
   */
  wipe(keepUsage = false): void {
    const carry = keepUsage ? this.usage.keepAll() : (this.usage.forget(), null);
    this.write(`DELETE FROM duet_ledger`);
    this.index.clear();
    if (!carry) return;
    const seq = this.nextSeq++;
    const slot = Number(
      this.sql.exec<Row>(`INSERT INTO duet_ledger (seq, kind, status, question, received_at, usage_carry) VALUES (?, 'message', 'free', '', 0, ?) RETURNING slot`, seq, carry).one().slot,
    );
    this.index.set(slot, { seq, kind: "message", status: "free", idemKey: null, receivedAt: 0, shown: false, claimant: null });
  }
}

function toTurn(r: Row): LedgerTurn {
  return {
    slot: Number(r.slot),
    seq: Number(r.seq),
    kind: String(r.kind) as TurnKind,
    idemKey: str(r.idem_key),
    userId: str(r.user_id),
    userName: str(r.user_name),
    question: String(r.question),
    receivedAt: Number(r.received_at),
    progress: str(r.progress),
    deliver: str(r.deliver),
  };
}
