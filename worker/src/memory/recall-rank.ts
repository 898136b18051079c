import { chunkOf, type ArchivedChunk } from "../storage/turn-archive.ts";
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
 * Each turn's stemmed words, kept on the turn itself: the archive hands out the
 * same turn objects search after search (its waiting turns and the chunks it
 * unpacked), so a turn's text is split once, not at every question. A symbol
 * key, so the words are never serialised with the turn; read for every
 * candidate of every question, where a WeakMap's lookup cost more than the
 * words' own test.
 */
const WORDS = Symbol("words");
type WithWords = ArchivedTurn & { [WORDS]?: Set<string> };

function wordsOf(t: WithWords): Set<string> {
  return (t[WORDS] ??= new Set((`${t.question} ${t.answer}`.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).map(stem)));
}

/**
 * Which of a chunk's turns hold each word, one bit per turn (its place in the
 * chunk): built once from the same words `wordsOf` keeps, since a chunk never
 * changes. A question then looks each of its words up once per chunk rather
 * than once per turn.
 */
const INDEXES = new WeakMap<ArchivedChunk, Map<string, number>>();

function indexOf(chunk: ArchivedChunk): Map<string, number> {
  let index = INDEXES.get(chunk);
  if (!index) {
    const built = new Map<string, number>();
    chunk.turns.forEach((t, at) => {
      for (const w of wordsOf(t)) built.set(w, (built.get(w) ?? 0) | (1 << at));
    });
    INDEXES.set(chunk, built);
    index = built;
  }
  return index;
}

/**
 * The turns that match `terms` best, best first, at most `limit`: each term a
 * turn holds counts by how rare it is among the candidates (a word in every
 * turn tells nothing), ties going to the newer turn. Turns that hold none of
 * the terms are left out. Runs for every question over a couple of hundred
 * turns, so it keeps no per-turn objects: one byte per turn and term, the
 * scores summed in the terms' order, and only the best `limit` kept in order.
 * The candidates are visited last first: the archive hands them out oldest
 * first, so the newer turn of a tie is met first and the older one is turned
 * away by one comparison, rather than each newer one walking the whole list
 * to its front (no two candidates share a seq, so the order met does not
 * change which are best).
 */
export function rankTurns(candidates: ArchivedTurn[], terms: string[], limit: number): ArchivedTurn[] {
  const wanted = [...new Set(terms.map(stem))];
  const n = candidates.length;
  const m = wanted.length;
  if (n === 0 || m === 0 || limit <= 0) return [];
  // Which of the wanted words each turn holds, looked up once for both the weights and the scores.
  const held = new Uint8Array(n * m);
  const df = new Uint32Array(m);
  // Per chunk met, which of its turns hold each wanted word (a bit per turn); a chunk's turns come one after another.
  const chunkBits = new Map<ArchivedChunk, Int32Array>();
  let lastChunk: ArchivedChunk | null = null;
  let bits: Int32Array = new Int32Array(0);
  for (let i = 0; i < n; i++) {
    const placed = chunkOf(candidates[i]);
    if (placed) {
      if (placed.chunk !== lastChunk) {
        lastChunk = placed.chunk;
        const known = chunkBits.get(lastChunk);
        if (known) bits = known;
        else {
          const index = indexOf(lastChunk);
          bits = new Int32Array(m);
          for (let j = 0; j < m; j++) bits[j] = index.get(wanted[j]) ?? 0;
          chunkBits.set(lastChunk, bits);
        }
      }
      for (let j = 0; j < m; j++) {
        if ((bits[j] >>> placed.at) & 1) {
          held[i * m + j] = 1;
          df[j]++;
        }
      }
      continue;
    }
    const words = wordsOf(candidates[i]);
    for (let j = 0; j < m; j++) {
      if (words.has(wanted[j])) {
        held[i * m + j] = 1;
        df[j]++;
      }
    }
  }
  const weight = new Float64Array(m);
  for (let j = 0; j < m; j++) weight[j] = df[j] ? Math.log(1 + n / df[j]) : 0;
  // The best so far, best first: a turn goes in where its score (then its seq) puts it, the worst falling off.
  const best: { turn: ArchivedTurn; score: number }[] = [];
  for (let i = n - 1; i >= 0; i--) {
    let score = 0;
    for (let j = 0; j < m; j++) if (held[i * m + j]) score += weight[j];
    if (!(score > 0)) continue;
    const turn = candidates[i];
    const worst = best[best.length - 1];
    if (best.length === limit && !ahead(score, turn.seq, worst.score, worst.turn.seq)) continue;
    let at = best.length === limit ? limit - 1 : best.length;
    while (at > 0 && ahead(score, turn.seq, best[at - 1].score, best[at - 1].turn.seq)) at--;
    if (best.length === limit) best.pop();
    best.splice(at, 0, { turn, score });
  }
  return best.map((b) => b.turn);
}

/** Whether a turn scoring `score` at `seq` ranks before one scoring `other` at `otherSeq`: the higher score, then the newer turn. */
const ahead = (score: number, seq: number, other: number, otherSeq: number) => score > other || (score === other && seq > otherSeq);
