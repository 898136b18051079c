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

const wordsOf = (s: string) => new Set((s.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).map(stem));

/**
 * The turns that match `terms` best, best first, at most `limit`: each term a
 * turn holds counts by how rare it is among the candidates (a word in every
 * turn tells nothing), ties going to the newer turn. Turns that hold none of
 * the terms are left out.
 */
export function rankTurns(candidates: ArchivedTurn[], terms: string[], limit: number): ArchivedTurn[] {
  const wanted = [...new Set(terms.map(stem))];
  const held = candidates.map((t) => wordsOf(`${t.question} ${t.answer}`));
  const weight = new Map(
    wanted.map((w) => {
      const df = held.filter((h) => h.has(w)).length;
      return [w, df ? Math.log(1 + candidates.length / df) : 0];
    }),
  );
  return candidates
    .map((turn, i) => ({ turn, score: wanted.reduce((sum, w) => sum + (held[i].has(w) ? weight.get(w)! : 0), 0) }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || b.turn.seq - a.turn.seq)
    .slice(0, limit)
    .map((s) => s.turn);
}
