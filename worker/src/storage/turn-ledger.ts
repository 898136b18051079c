import { DEFAULT_ROOM_HISTORY_MAX_BYTES, type DuetMessage } from "@duet/shared";
import { archivedMessages, HistoryView } from "./history-view.ts";
import { CHUNK_TURNS, TurnArchive, type ArchivedTurn } from "./turn-archive.ts";
import { HISTORY_TURNS, TurnRows } from "./turn-rows.ts";
import type { UsageTotals } from "../usage/usage-entries.ts";
import type { AnsweredTurn, HistoryNote, LedgerTurn, StoredAnswer, TurnKind } from "./turn-types.ts";

export type { AnsweredTurn, HistoryNote, LedgerTurn, StoredAnswer, TurnKind } from "./turn-types.ts";
export type { ArchivedTurn } from "./turn-archive.ts";

/**
 * A room's turns: their rows (TurnRows) and what is read of them, kept in
 * memory (HistoryView). Every write that adds to the history goes through
 * here, so the view stays in step with the rows. Written by the room's turns
 * only (turns/: RoomTurns and the work it runs).
 */
export class TurnLedger {
  private readonly rows: TurnRows;
  private readonly view: HistoryView;
  private readonly archive: TurnArchive;

  /** `historyMaxBytes`: the text the searchable archive of answered turns keeps (DUET_ROOM_HISTORY_MAX_BYTES). */
  constructor(
    private readonly storage: DurableObjectStorage,
    historyMaxBytes = DEFAULT_ROOM_HISTORY_MAX_BYTES,
  ) {
    this.rows = new TurnRows(storage);
    this.view = new HistoryView(this.rows);
    this.archive = new TurnArchive(storage.sql, historyMaxBytes, () => this.rows.shownTurns(CHUNK_TURNS).map(archived));
  }

  /** Records an accepted turn before any work starts: one row written. */
  accept(turn: Omit<LedgerTurn, "slot" | "seq" | "progress">, now = Date.now()): LedgerTurn {
    return this.rows.accept(turn, now);
  }

  /** A place in the history for something recorded later (a decision queued behind the turn running now). */
  reserveSeq(): number {
    return this.rows.reserveSeq();
  }

  /** A line of history recorded whole (a decision, an unkeyed direct run): one row written. */
  note(note: HistoryNote, seq = this.rows.reserveSeq(), now = Date.now()): void {
    this.join(seq, () => this.rows.note(note, seq, now));
  }

  /**
   * A turn's row written by `write` joins the history: in one transaction
   * with the archive's chunk row when this turn fills a chunk; otherwise its
   * one statement is its own (a transaction around one write only costs).
   */
  private join(seq: number, write: () => AnsweredTurn): void {
    if (this.archive.fills(seq)) this.storage.transactionSync(() => this.shown(write()));
    else this.shown(write());
  }

  /** A turn joined the history: the view shows it, and the archive keeps it (a chunk's row written with every CHUNK_TURNS-th). */
  private shown(turn: AnsweredTurn): void {
    this.view.add(turn);
    this.archive.add(archived(turn));
  }

  /** An answer for a bot to post that is not part of the conversation (kept out of the history): one row written. */
  keep(turn: Omit<LedgerTurn, "slot" | "seq" | "progress">, answer: StoredAnswer, now = Date.now()): void {
    this.rows.keep(turn, answer, now);
  }

  /** The turn's progress (redacted JSON) before its next command starts: one row written. */
  markStarted(turn: LedgerTurn, progress: string): void {
    this.rows.markStarted(turn, progress);
  }

  /**
   * A message turn's answer: one row written; the turn joins the history and
   * the archive, whose chunk row (one per CHUNK_TURNS turns) is written in the
   * same transaction when this turn fills it.
   */
  answer(turn: LedgerTurn, answer: StoredAnswer, modelText: string, now = Date.now(), posted: string | null = null): void {
    this.join(turn.seq, () => this.rows.answer(turn, answer, modelText, now, posted));
  }

  /** Earlier turns that may match `terms`, older than `beforeSeq` (kept out of the recent window), for recall to rank. */
  recallCandidates(terms: string[], beforeSeq: number): ArchivedTurn[] {
    return this.archive.candidates(terms, beforeSeq);
  }

  /** The newest `limit` shown turns older than `beforeSeq`, oldest first, as the archive keeps them (what a summary is written from). */
  turnsBefore(beforeSeq: number, limit: number): ArchivedTurn[] {
    return this.archive.page(beforeSeq, limit);
  }

  /** A keyed direct run's outcome, as the note the history shows: one row written. */
  finishRun(turn: LedgerTurn, note: HistoryNote, now = Date.now()): void {
    this.join(turn.seq, () => this.rows.finishRun(turn, note, now));
  }

  /** A turn that failed before it answered leaves nothing behind. */
  drop(turn: LedgerTurn): void {
    this.rows.drop(turn);
  }

  /** Turns accepted and not answered, oldest first: after a restart, these were cut off. */
  pending(kind: TurnKind): LedgerTurn[] {
    return this.rows.pending(kind);
  }

  /** The stored answer for a key answered within the TTL. */
  answered(kind: TurnKind, idemKey: string, now = Date.now()): StoredAnswer | null {
    return this.rows.answered(kind, idemKey, now);
  }

  /** Who asked first with a key still running or answered (see TurnRows.claimantOf); undefined when the key is not known. */
  claimantOf(kind: TurnKind, idemKey: string, now = Date.now()): string | null | undefined {
    return this.rows.claimantOf(kind, idemKey, now);
  }

  recentTurns(limit?: number): AnsweredTurn[] {
    return this.view.recentTurns(limit);
  }

  history(): DuetMessage[] {
    return this.view.history();
  }

  historyJson(): string {
    return this.view.historyJson();
  }

  /**
   * A page of the conversation: the history (the last 50 messages), or with
   * `before` the 50 messages of the turns before that one; `before` in it is
   * where the next page further back starts, absent when nothing is further
   * back (so a room that never paged answers as it always has).
   */
  page(before?: number): { messages: DuetMessage[]; before?: number } {
    if (before === undefined) return withCursor(this.view.history(), this.view.oldestSeq());
    const turns = this.archive.page(before, HISTORY_TURNS);
    return withCursor(archivedMessages(turns), turns.length === HISTORY_TURNS ? turns[0].seq : null);
  }

  messageCount(): number {
    return this.view.history().length;
  }

  /** Model usage over the last days, per day, person and model. */
  usageTotals(now = Date.now()): UsageTotals {
    return this.rows.usageTotals(now);
  }

  /** Empties the ledger: history, pending turns and stored answers; usage too unless `keepUsage` (a person's reset). */
  wipe(keepUsage = false): void {
    this.rows.wipe(keepUsage);
    this.view.wipe();
    this.archive.wipe();
  }
}

/** A shown turn as the archive keeps it. */
function archived(t: AnsweredTurn): ArchivedTurn {
  return {
    seq: t.seq,
    userId: t.userId,
    userName: t.userName ?? null,
    question: t.question,
    answer: t.reply,
    at: t.receivedAt,
    answeredAt: t.answeredAt,
    ...(t.stopped ? { stopped: true } : {}),
    ...(t.scheduleId ? { scheduleId: t.scheduleId } : {}),
  };
}

/** A page of messages, with `before` only when a page further back exists. */
function withCursor(messages: DuetMessage[], next: number | null): { messages: DuetMessage[]; before?: number } {
  return next === null ? { messages } : { messages, before: next };
}
