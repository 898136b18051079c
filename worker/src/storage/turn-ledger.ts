import { DEFAULT_ROOM_HISTORY_MAX_BYTES, type DuetMessage } from "@duet/shared";
import { HistoryView } from "./history-view.ts";
import { TurnArchive, type ArchivedTurn } from "./turn-archive.ts";
import { TurnRows } from "./turn-rows.ts";
import type { UsageTotals } from "../usage/usage-entries.ts";
import type { AnsweredTurn, HistoryNote, LedgerTurn, StoredAnswer, TurnKind } from "./turn-types.ts";

export type { AnsweredTurn, HistoryNote, LedgerTurn, StoredAnswer, TurnKind } from "./turn-types.ts";
export type { ArchivedTurn } from "./turn-archive.ts";

/**
 * A room's turns: their rows (TurnRows) and what is read of them, kept in
 * memory (HistoryView). Every write that adds to the history goes through
 * here, so the view stays in step with the rows. Written by the room's turns
 * only (turns/room-turns.ts).
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
    this.archive = new TurnArchive(storage.sql, historyMaxBytes);
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
    this.view.add(this.rows.note(note, seq, now));
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
   * A message turn's answer: its row, and its question and reply in the
   * searchable archive, in one transaction (an answer is never kept without
   * being findable, nor found without being kept); the turn joins the history.
   */
  answer(turn: LedgerTurn, answer: StoredAnswer, modelText: string, now = Date.now(), posted: string | null = null): void {
    this.storage.transactionSync(() => {
      this.view.add(this.rows.answer(turn, answer, modelText, now, posted));
      this.archive.add({ seq: turn.seq, userId: turn.userId, userName: turn.userName ?? null, question: turn.question, answer: answer.reply, at: turn.receivedAt });
    });
  }

  /** Earlier answered turns that match `terms` best, older than `beforeSeq` (kept out of the recent window), best first. */
  recall(terms: string[], beforeSeq: number, limit: number): ArchivedTurn[] {
    return this.archive.search(terms, beforeSeq, limit);
  }

  /** A keyed direct run's outcome, as the note the history shows: one row written. */
  finishRun(turn: LedgerTurn, note: HistoryNote, now = Date.now()): void {
    this.view.add(this.rows.finishRun(turn, note, now));
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
