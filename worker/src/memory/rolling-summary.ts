import { SUMMARY_TOKENS_SHOWN, SUMMARY_USAGE_NAME, type ModelPrice } from "@duet/shared";
import { streamModelText } from "../model/stream.ts";
import type { ChatModel } from "../model/types.ts";
import { CONTEXT_TURNS } from "../storage/history-view.ts";
import type { ArchivedTurn, TurnLedger } from "../storage/turn-ledger.ts";
import { costMicros, UsageTotals, type TurnUsage, type UsageEntry } from "../usage/usage-entries.ts";
import { CHARS_PER_TOKEN, recalledLine } from "./recall.ts";
import { summaryRequest } from "./summary-prompt.ts";
import type { SummaryRows } from "./summary-rows.ts";

/** Earlier turns read back when the history out of the window is counted or summarised: more than a summary is ever written from. */
const SCAN_TURNS = 200;
/** The transcript one summary call is given: 6,000 tokens fits an 8K-token model with the summary it writes; turns past it wait for the next call. */
const INPUT_MAX_CHARS = 24_000;
/** One turn's share of that transcript, so one long paste cannot take all of it. */
const TURN_MAX_CHARS = 2_000;

export interface SummaryDeps {
  /** DUET_SUMMARY_TOKENS: history out of the window, in tokens, that makes a new summary due; 0 never summarises. */
  tokens: number;
  ledger: TurnLedger;
  rows: SummaryRows;
  /** The room's own model, as its turns use it. */
  model: () => ChatModel;
  timeoutMs: number;
  temperature: number;
  price: (model: string) => ModelPrice | undefined;
  redact: (text: string) => string;
  /** Keeps the object alive while a summary is written after the answer went out. */
  waitUntil: (p: Promise<unknown>) => void;
}

const charsOf = (t: { question: string }, answer: string) => t.question.length + answer.length;

/**
 * A room's rolling summary: once DUET_SUMMARY_TOKENS of history have fallen
 * out of the model's window since the last summary, the room's model writes a
 * new one from the old one and those turns. It is written after a turn was
 * answered and outside the turn queue, so it never delays a person's turn; a
 * call that fails or times out writes nothing and is tried again after the
 * next turn. Its calls are counted in the room's usage under SUMMARY_USAGE_NAME.
 */
export class RollingSummary {
  private running: Promise<void> | null = null;
  /** Bumped by a wipe: a summary begun before it must not write into the emptied room. */
  private generation = 0;
  /** Characters of the turns out of the window and not yet summarised, counted from `from` (the window's oldest turn then); null: count again. */
  private counted: { from: number; chars: number; window: { seq: number; chars: number }[] } | null = null;

  constructor(private readonly deps: SummaryDeps) {}

  /** The summary the model is shown, or null. */
  text(): string | null {
    return this.deps.tokens > 0 ? this.deps.rows.read().text : null;
  }

  /** The summary calls' usage over the last days, as the room's usage adds it. */
  usage(): UsageEntry[] {
    return this.deps.rows.read().usage;
  }

  /** Whether a summary is being written now, and when the kept one was written (0: none): the room's stats, for operators and benchmarks. */
  state(): { writing: boolean; at: number } {
    return { writing: this.running !== null, at: this.deps.rows.read().at };
  }

  /** Resolves once no summary is being written (a test's barrier: a summary begun by an answered turn has settled). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  /**
   * A turn joined the history: when enough has fallen out of the window since
   * the last summary, a new one is begun in the background (one at a time).
   */
  afterTurn(): void {
    if (this.deps.tokens <= 0 || this.running) return;
    const out = this.outOfWindow();
    if (out === null || out.chars < this.deps.tokens * CHARS_PER_TOKEN) return;
    const generation = this.generation;
    const task = this.write(out.from, generation)
      .catch((err) => console.error("the room's summary could not be written; it is tried again after the next turn", err))
      .finally(() => {
        this.running = null;
      });
    this.running = task;
    this.deps.waitUntil(task);
  }

  /** The room was emptied (`keep` as SummaryRows.wipe); a summary being written is dropped. */
  wipe(keep: { usage: boolean; text: boolean }): void {
    this.generation++;
    this.counted = null;
    this.deps.rows.wipe(keep);
  }

  /**
   * The history out of the window since the last summary: where the window
   * starts, and its characters. Counted from the archive once per instance
   * (or after a summary), then kept in step from the window each turn moves.
   */
  private outOfWindow(): { from: number; chars: number } | null {
    const window = this.deps.ledger.recentTurns(CONTEXT_TURNS);
    // A window not yet full has nothing older than it.
    if (window.length < CONTEXT_TURNS) return null;
    const from = window[0].seq;
    const through = this.deps.rows.read().throughSeq;
    const sizes = window.map((t) => ({ seq: t.seq, chars: charsOf(t, t.reply) }));
    const c = this.counted;
    // The turns that left the window since the last count were in the window then, when the two windows overlap.
    if (c && from >= c.from && from <= (c.window.at(-1)?.seq ?? -1)) {
      const left = c.window.filter((t) => t.seq >= c.from && t.seq < from && t.seq > through);
      this.counted = { from, chars: c.chars + left.reduce((n, t) => n + t.chars, 0), window: sizes };
    } else {
      const older = this.deps.ledger.turnsBefore(from, SCAN_TURNS).filter((t) => t.seq > through);
      this.counted = { from, chars: older.reduce((n, t) => n + charsOf(t, t.answer), 0), window: sizes };
    }
    return this.counted;
  }

  /** Asks the room's model for the new summary of what lies before `from`, and keeps it with the call's usage: one row. */
  private async write(from: number, generation: number): Promise<void> {
    const { deps } = this;
    const before = deps.rows.read();
    const turns = transcript(deps.ledger.turnsBefore(from, SCAN_TURNS).filter((t) => t.seq > before.throughSeq));
    if (!turns.length) {
      // Nothing older is kept to summarise (dropped at the archive's bound): counted again from what is.
      this.counted = null;
      return;
    }
    const model = deps.model();
    const usage: TurnUsage = { model: model.name, inputTokens: null, outputTokens: null };
    let text = "";
    const pieces = streamModelText(model, summaryRequest(before.text, turns.map((t) => t.line)), {
      signal: new AbortController().signal,
      timeoutMs: deps.timeoutMs,
      stream: false,
      maxTokens: SUMMARY_TOKENS_SHOWN,
      temperature: deps.temperature,
      onUsage: (u) => Object.assign(usage, u),
    });
    for await (const piece of pieces) text += piece;
    // Emptied while the model wrote: the summary is of a conversation that is gone.
    if (generation !== this.generation) return;
    const summary = deps.redact(cut(text.trim(), SUMMARY_TOKENS_SHOWN * CHARS_PER_TOKEN));
    if (!summary) throw new Error("the model wrote an empty summary");
    const now = Date.now();
    const price = deps.price(usage.model);
    const priced = price && usage.inputTokens !== null && usage.outputTokens !== null ? { ...usage, costMicros: costMicros(price, usage.inputTokens, usage.outputTokens) } : usage;
    const totals = new UsageTotals().addAll(before.usage);
    totals.addTurn(now, null, SUMMARY_USAGE_NAME, priced);
    deps.rows.write({ text: summary, throughSeq: turns.at(-1)!.seq, at: now, usage: totals.list(now) });
    this.counted = null;
  }
}

/** The turns a summary is written from, oldest first, as far as the transcript's bound allows (at least one). */
function transcript(turns: ArchivedTurn[]): { seq: number; line: string }[] {
  const lines: { seq: number; line: string }[] = [];
  let room = INPUT_MAX_CHARS;
  for (const t of turns) {
    const line = recalledLine(t, TURN_MAX_CHARS);
    if (lines.length && line.length > room) break;
    lines.push({ seq: t.seq, line });
    room -= line.length;
  }
  return lines;
}

const cut = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);
