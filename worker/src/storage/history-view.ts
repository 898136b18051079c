import { HISTORY_KEEP, MODEL_CONTEXT_MESSAGES, type DuetMessage } from "@duet/shared";
import { HISTORY_TURNS, type TurnRows } from "./turn-rows.ts";
import type { ArchivedTurn } from "./turn-archive.ts";
import type { AnsweredTurn } from "./turn-types.ts";

/** Answered turns the model's context is built from; kept in memory. */
export const CONTEXT_TURNS = MODEL_CONTEXT_MESSAGES / 2;

/**
 * What a turn reads of the room's past, kept in memory: the history (as
 * messages, each with its JSON) and the newest CONTEXT_TURNS answered turns.
 * Each is read from the rows once per wake, then kept in step by `add` (the
 * queue answers turns in arrival order, so each goes at the end), so a turn
 * costs its writes only.
 */
export class HistoryView {
  private shown: DuetMessage[] | null = null;
  /**
   * Each message of `shown` as JSON, written once when it joins: every answer
   * carries the whole history, and serialising its 50 messages again per turn
   * was a measurable share of a turn's CPU.
   */
  private shownJson: string[] = [];
  private recent: AnsweredTurn[] | null = null;
  /** The seq of each turn in `shown`, oldest first: where a page further back starts (`?before=`). */
  private shownSeqs: number[] = [];

  constructor(private readonly rows: TurnRows) {}

  /** A turn just joined the history. */
  add(turn: AnsweredTurn): void {
    if (this.shown) {
      const added = messagesOf(turn.userId, turn.userName ?? null, turn.question, turn.receivedAt, turn.reply, turn.answeredAt, turn.stopped === true, turn.scheduleId ?? null);
      this.shown.push(...added);
      this.shownJson.push(...added.map((m) => JSON.stringify(m)));
      this.shownSeqs.push(turn.seq);
      if (this.shown.length > HISTORY_KEEP) {
        this.shown.splice(0, this.shown.length - HISTORY_KEEP);
        this.shownJson.splice(0, this.shownJson.length - HISTORY_KEEP);
        this.shownSeqs.splice(0, this.shownSeqs.length - HISTORY_TURNS);
      }
    }
    if (this.recent) {
      this.recent.push(turn);
      if (this.recent.length > CONTEXT_TURNS) this.recent.shift();
    }
  }

  /** The newest answered turns, oldest first, with the model's own text and each command's result. */
  recentTurns(limit = HISTORY_TURNS): AnsweredTurn[] {
    if (limit <= CONTEXT_TURNS) {
      this.recent ??= this.rows.shownTurns(CONTEXT_TURNS);
      return limit > 0 ? this.recent.slice(-limit) : [];
    }
    return this.rows.shownTurns(limit);
  }

  /** The room's history (last 50 messages): each answered turn as the person's message and Duet's reply. */
  history(): DuetMessage[] {
    return this.messages().slice();
  }

  /** The history as JSON text: equal to JSON.stringify(history()), from each message's JSON kept since it joined. */
  historyJson(): string {
    this.messages();
    return `[${this.shownJson.join(",")}]`;
  }

  /** The seq of the history's oldest turn when the history is full (earlier turns may be paged to from it), else null. */
  oldestSeq(): number | null {
    return this.messages().length >= HISTORY_KEEP ? (this.shownSeqs[0] ?? null) : null;
  }

  private messages(): DuetMessage[] {
    if (this.shown) return this.shown;
    const lines = this.rows.shownLines();
    this.shown = lines.flatMap((r) => messagesOf(r.userId, r.userName, r.question, r.receivedAt, r.reply, r.answeredAt, r.stopped, r.scheduleId));
    this.shownJson = this.shown.map((m) => JSON.stringify(m));
    this.shownSeqs = lines.map((r) => r.seq);
    return this.shown;
  }

  /** The room was emptied. */
  wipe(): void {
    this.shown = [];
    this.shownJson = [];
    this.shownSeqs = [];
    this.recent = [];
  }
}

/** Turns from further back than the history (the archive's), as the messages the history would have shown. */
export function archivedMessages(turns: ArchivedTurn[]): DuetMessage[] {
  return turns.flatMap((t) => messagesOf(t.userId, t.userName, t.question, t.at, t.answer, t.answeredAt, t.stopped === true, t.scheduleId ?? null));
}

function messagesOf(
  userId: string | null,
  userName: string | null,
  question: string,
  receivedAt: number,
  reply: string,
  answeredAt: number,
  stopped: boolean,
  scheduleId: string | null,
): DuetMessage[] {
  // Literals rather than spreads: built for every answered turn (keys in the order the API has always sent them).
  const asked: DuetMessage =
    userId === null
      ? { role: "user", text: question, ts: receivedAt }
      : userName
        ? { role: "user", userId, userName, text: question, ts: receivedAt }
        : { role: "user", userId, text: question, ts: receivedAt };
  // A schedule's run is marked as such: nobody typed it then.
  if (scheduleId !== null) asked.schedule = scheduleId;
  return [
    asked,
    stopped ? { role: "agent", text: reply, ts: answeredAt, stopped: true } : { role: "agent", text: reply, ts: answeredAt },
  ];
}
