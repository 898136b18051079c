import type { ArchivedTurn } from "../storage/turn-ledger.ts";

/**
 * A word cut to what its inflections share ("runs", "running", "ran" aside):
 * the same words the archive's porter tokenizer found a chunk by are matched
 * again here, one turn at a time. Crude on purpose: both sides are cut alike.
 */
export function stem(word: string): string {
  let w = word.toLowerCase();
  if (w.length > 4 && w.endsWith("ies")) w = `${w.slice(0, -3)}y`;
  else if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss")) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith("ing")) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith("ed")) w = w.slice(0, -2);
  return w;
}

/**
 * Each turn's stemmed words, kept while the turn is: the archive hands out the
 * same turn objects search after search (its waiting turns and the chunks it
 * unpacked), so a turn's text is split once, not at every question.
 */
const turnWords = new WeakMap<ArchivedTurn, Set<string>>();

function wordsOf(t: ArchivedTurn): Set<string> {
  let words = turnWords.get(t);
  if (!words) {
    words = new Set((`${t.question} ${t.answer}`.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).map(stem));
    turnWords.set(t, words);
  }
  return words;
}

/**
 * The turns that match `terms` best, best first, at most `limit`: each term a
 * turn holds counts by how rare it is among the candidates (a word in every
 * turn tells nothing), ties going to the newer turn. Turns that hold none of
 * the terms are left out.
 */
export function rankTurns(candidates: ArchivedTurn[], terms: string[], limit: number): ArchivedTurn[] {
  const wanted = [...new Set(terms.map(stem))];
  // Which of the wanted words each turn holds, looked up once for both the weights and the scores.
  const hits = candidates.map((t) => {
    const words = wordsOf(t);
    return wanted.map((w) => words.has(w));
  });
  const weight = wanted.map((_, j) => {
    let df = 0;
    for (const h of hits) if (h[j]) df++;
    return df ? Math.log(1 + candidates.length / df) : 0;
  });
  return candidates
    .map((turn, i) => ({ turn, score: weight.reduce((sum, wt, j) => sum + (hits[i][j] ? wt : 0), 0) }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || b.turn.seq - a.turn.seq)
    .slice(0, limit)
    .map((s) => s.turn);
}
