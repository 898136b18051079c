import { describe, expect, it } from "vitest";
import { placeInChunk, type ArchivedTurn } from "../storage/turn-archive.ts";
import { rankTurns, stem } from "./recall-rank.ts";

const turn = (seq: number, question: string, answer = ""): ArchivedTurn => ({ seq, userId: "U1", userName: null, question, answer, at: seq, answeredAt: seq });

/** The ranking written plainly, as the rule reads: each held term weighs log(1 + N / df), summed; best first, the newer turn on a tie. */
function plainRank(candidates: ArchivedTurn[], terms: string[], limit: number): number[] {
  const wanted = [...new Set(terms.map(stem))];
  const words = candidates.map((t) => new Set((`${t.question} ${t.answer}`.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).map(stem)));
  const weight = wanted.map((w) => {
    const df = words.filter((ws) => ws.has(w)).length;
    return df ? Math.log(1 + candidates.length / df) : 0;
  });
  return candidates
    .map((t, i) => ({ seq: t.seq, score: wanted.reduce((sum, w, j) => sum + (words[i].has(w) ? weight[j] : 0), 0) }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || b.seq - a.seq)
    .slice(0, limit)
    .map((s) => s.seq);
}

/** A small deterministic generator, so a failure names a case that can be run again. */
function words(seed: number): () => string {
  const vocabulary = "deploy deploys deployed staging port ports database migrations run running logs tests failing cache redis node_modules sizes files".split(" ");
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return vocabulary[x % vocabulary.length];
  };
}

describe("rankTurns", () => {
  it("picks the turns holding the rarest of the question's words first, the newer one on a tie, and leaves out turns holding none", () => {
    const turns = [turn(1, "where do the logs go"), turn(2, "staging port?", "8443"), turn(3, "the logs again"), turn(4, "nothing here"), turn(5, "staging logs")];
    // "staging" is in 2 turns, "logs" in 3: a turn with both first, then staging's other turn, then logs' newest.
    expect(rankTurns(turns, ["staging", "logs"], 10).map((t) => t.seq)).toEqual([5, 2, 3, 1]);
    expect(rankTurns(turns, ["staging", "logs"], 2).map((t) => t.seq)).toEqual([5, 2]);
    expect(rankTurns(turns, ["absent"], 10)).toEqual([]);
  });

  it("ranks 200 generated rooms exactly as the rule written plainly does, whatever the limit", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const next = words(seed);
      const say = (k: number) => Array.from({ length: k }, next).join(" ");
      const candidates = Array.from({ length: 1 + (seed % 60) }, (_, i) => turn(seed * 1000 + ((i * 7) % 61), say(1 + (i % 5)), say(i % 4)));
      const unique = candidates.filter((t, i) => candidates.findIndex((u) => u.seq === t.seq) === i);
      const terms = say(1 + (seed % 4)).split(" ");
      const limit = 1 + (seed % 15);
      expect(rankTurns(unique, terms, limit).map((t) => t.seq), `seed ${seed}`).toEqual(plainRank(unique, terms, limit));
    }
  });

  it("ranks turns read from archived chunks (their words indexed once per chunk) and waiting ones exactly as the rule written plainly does", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const next = words(seed);
      const say = (k: number) => Array.from({ length: k }, next).join(" ");
      let seq = 0;
      // Up to 8 chunks of up to 25 turns, then the turns still waiting for a chunk; asked for the turns before a window.
      const chunks = Array.from({ length: 1 + (seed % 8) }, (_, c) => placeInChunk(Array.from({ length: 1 + ((seed + c * 7) % 25) }, (_, i) => turn(++seq, say(1 + (i % 5)), say(i % 4)))));
      const waiting = Array.from({ length: seed % 24 }, (_, i) => turn(++seq, say(1 + (i % 3)), say(i % 5)));
      const before = 1 + (seed * 13) % (seq + 1);
      const candidates = [...chunks.flat(), ...waiting].filter((t) => t.seq < before);
      const terms = say(1 + (seed % 4)).split(" ");
      const limit = 1 + (seed % 15);
      expect(rankTurns(candidates, terms, limit).map((t) => t.seq), `seed ${seed}`).toEqual(plainRank(candidates, terms, limit));
    }
  });
});
