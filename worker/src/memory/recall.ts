import { RECALL_LABEL } from "../model/prompt.ts";
import type { ArchivedTurn, TurnLedger } from "../storage/turn-ledger.ts";
import { utcDay } from "../usage/usage-entries.ts";
import { rankTurns } from "./recall-rank.ts";

/** About four characters to a token in English and code: how DUET_RECALL_TOKENS becomes a length to cut at. */
export const CHARS_PER_TOKEN = 4;
/** The best-ranked earlier turns the budget picks among: more than ever fit in 800 tokens. */
export const RECALL_CANDIDATES = 12;
/** Words kept from a question: the first ones carry it, and a 5,000-character paste must not make a 1,000-term query. */
const MAX_TERMS = 24;
/** One recalled turn takes at most this share of the budget, so one long answer cannot crowd out the rest. */
const ITEM_SHARE = 0.5;

/** Words that match nearly every turn and tell bm25 nothing. */
const STOP = new Set(
  "a an and or the is are was were be been to of in on at for with what which who whom how does do did it its this that these those we our you your i my me by from as about can could should would will there here when where why not no yes ok okay please duet say tell us".split(" "),
);

/**
 * The words of a person's question as search terms: letters and digits only,
 * lower-cased, each once. Whatever else was typed (quotes, `*`, `NEAR(`,
 * `col:`, parentheses) is not part of any term, so it never reaches FTS5 as
 * syntax.
 */
export function recallTerms(question: string): string[] {
  const words = question.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  const terms = new Set<string>();
  for (const w of words) {
    if (w.length < 2 || STOP.has(w)) continue;
    terms.add(w);
    if (terms.size >= MAX_TERMS) break;
  }
  return [...terms];
}

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();

/**
 * A turn's question and answer on one line each, kept on the turn (a symbol
 * key, never serialised): the archive hands out the same turn objects search
 * after search, and the best of them are shown again and again.
 */
const ONE_LINED = Symbol("oneLined");
type WithLines = ArchivedTurn & { [ONE_LINED]?: { question: string; answer: string } };

function linesOf(t: WithLines): { question: string; answer: string } {
  return (t[ONE_LINED] ??= { question: oneLine(t.question), answer: oneLine(t.answer) });
}

const cut = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, Math.max(0, max - 1))}…`);

/**
 * One recalled turn as the model reads it: who asked, when, and what Duet
 * answered, at most `max` characters. A long turn is cut in both halves, the
 * question given the half the answer does not need, so neither is lost.
 */
export function recalledLine(t: ArchivedTurn, max = Number.POSITIVE_INFINITY): string {
  const who = t.userName ?? (t.userId ? `user ${t.userId}` : "someone");
  const head = `${who} on ${utcDay(t.at)} asked: `;
  const mid = "\nDuet answered: ";
  const { question, answer } = linesOf(t);
  const room = max - head.length - mid.length;
  if (room < 20) return cut(`${head}${question}${mid}${answer}`, max);
  const asked = cut(question, Math.max(Math.floor(room / 2), room - answer.length));
  return `${head}${asked}${mid}${cut(answer, room - asked.length)}`;
}

/**
 * The recalled turns that fit `budgetChars` with the label before them, best
 * first, each cut to its share; the whole block (label and lines joined by
 * newlines) never exceeds the budget.
 */
export function fitRecalled(found: ArchivedTurn[], label: string, budgetChars: number): string[] {
  let room = budgetChars - label.length;
  const share = Math.floor(budgetChars * ITEM_SHARE);
  const lines: string[] = [];
  for (const t of found) {
    // Each line costs its newline too; a turn cut to less than a sentence is not worth showing.
    const max = Math.min(share, room - 1);
    if (max < 80) break;
    const line = recalledLine(t, max);
    lines.push(line);
    room -= line.length + 1;
  }
  return lines;
}

/**
 * The room's earlier turns recalled for `question`, as the lines of the
 * prompt's recalled block: those older than `beforeSeq` (the oldest turn the
 * model sees anyway) that match the question's words best, within `tokens`.
 */
export function recallFor(ledger: TurnLedger, question: string, beforeSeq: number, tokens: number): string[] {
  if (tokens <= 0) return [];
  const terms = recallTerms(question);
  const best = rankTurns(ledger.recallCandidates(terms, beforeSeq), terms, RECALL_CANDIDATES);
  return fitRecalled(best, RECALL_LABEL, tokens * CHARS_PER_TOKEN);
}
