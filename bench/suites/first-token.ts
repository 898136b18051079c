import type { FakeModel } from "../../test/fakes/model.ts";
import type { Arrivals } from "../arrivals.ts";
import { summarize, type Result } from "../stats.ts";

/**
 * Live answers: how long after the interaction (the mention, the command) and
 * after the model's first token a person sees text, and how long the whole turn
 * takes. The interaction → first words row sits beside the interaction → the
 * model's first token row, so what the bot and the Worker add before the first
 * words reads as their difference. The fake model streams an answer of 10 pieces
 * 100 ms apart and notes when it wrote the first one; the fake platform notes
 * the first call carrying the answer's opening marker (first visible text) and
 * the first carrying its closing marker (the whole answer visible). All three
 * times are read in this process. The prompt is base64, so the markers appear
 * only in what the model answers, never in an echo of the question.
 */

const PIECES = 10;
const DRIP_MS = 100;
const CHUNK = 12;
/** Turns in flight at once, each in its own channel (room), so the rows take seconds, not minutes. */
export const LIVE_LANES = 4;

export interface FirstTokenTurn {
  /** Sends `prompt` as a person would in the lane's channel; returns when the event left. */
  send(lane: number, prompt: string): number | Promise<number>;
  /** Resolves once the turn is over, so the lane's next turn does not queue behind it. */
  settled?(lane: number): Promise<unknown>;
}

function answer(tag: string): { prompt: string; first: string; last: string; b64: string } {
  const first = `ftk${tag}a`;
  const last = `ftk${tag}z`;
  const filler = "the answer grows as the model writes it ".repeat(8);
  const text = `${first} ${filler.slice(0, PIECES * CHUNK - first.length - last.length - 2)} ${last}`;
  const b64 = Buffer.from(text).toString("base64");
  return { prompt: `CHUNK:${CHUNK} DRIP:${DRIP_MS} SAY64: ${b64}`, first, last, b64 };
}

/** `samples` timed turns (plus one warm-up per lane); `label` names the rows ("slack HTTP", "discord"). */
export async function firstTokenResults(label: string, model: FakeModel, arrivals: Arrivals, turn: FirstTokenTurn, samples: number): Promise<Result[]> {
  const firstText: number[] = [];
  const sentToToken: number[] = [];
  const sentToText: number[] = [];
  const endToEnd: number[] = [];
  const run = async (tag: string, lane: number) => {
    const a = answer(tag);
    const shown = arrivals.expectText(a.first);
    const whole = arrivals.expectText(a.last);
    const sentAt = await turn.send(lane, a.prompt);
    const [shownAt, wholeAt] = await Promise.all([shown, whole]);
    await turn.settled?.(lane);
    const token = model.firstPieces.find((p) => p.last.includes(a.b64))?.at;
    if (token === undefined) throw new Error(`${label}: the model was never asked to stream the answer`);
    return { first: shownAt - token, token: token - sentAt, text: shownAt - sentAt, all: wholeAt - sentAt };
  };
  const runId = Math.random().toString(36).slice(2, 6);
  let next = 0;
  await Promise.all(
    Array.from({ length: LIVE_LANES }, async (_, lane) => {
      await run(`${runId}w${lane}`, lane);
      for (let i = next++; i < samples; i = next++) {
        const s = await run(`${runId}s${i}`, lane);
        firstText.push(s.first);
        sentToToken.push(s.token);
        sentToText.push(s.text);
        endToEnd.push(s.all);
      }
    }),
  );
  const how = `${PIECES} pieces ${DRIP_MS} ms apart, ${LIVE_LANES} turns at once in their own channels`;
  return [
    summarize(`${label}: interaction → model's first token`, "ms", sentToToken, `event sent → the fake model writes its first piece; ${how}`),
    summarize(`${label}: interaction → first visible text`, "ms", sentToText, `event sent → the first call at the fake carrying the first piece (for Discord the first edit of the deferred reply); ${how}`),
    summarize(`${label}: model's first token → first visible text`, "ms", firstText, `the fake model writes its first piece → the first call at the fake carrying it; ${how}`),
    summarize(`${label}: end-to-end, streamed answer`, "ms", endToEnd, `event sent → the first call at the fake carrying the last piece, same turns; ${how}`),
  ];
}
