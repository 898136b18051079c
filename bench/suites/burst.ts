import { mentionEvent } from "../../test/fakes/slack/index.ts";
import type { ApiCall } from "../../test/fakes/slack/server.ts";
import type { BenchStack } from "../stack.ts";
import { single, summarize, type Result } from "../stats.ts";
import { post, type Setup, startSetup } from "./replicas.ts";

/**
 * One busy channel: 50 mentions within one second in one Slack channel, with
 * one bot process and with two behind a round-robin balancer (each against
 * the same Worker, streaming on). Each answer streams for about a second
 * (10 pieces 100 ms apart), as a real model's short answer does, so the room
 * answers about one a second: the channel's pace. Reported per setup, as a
 * person in the channel would see it:
 *
 * - answered: mentions whose thread got their own answer (the rest were refused);
 * - order inversions: pairs of answers whose first messages came in the other
 *   order than their questions were asked;
 * - time to place: the mention's POST → the ⏳ note telling its place (or, for
 *   one the room answered at once, its answer's first message);
 * - appends per answer: chat.appendStream calls that grew each answer after it
 *   started (0: it was posted whole), and how many answers were posted whole.
 */

const BURST = 50;
/** 50 events in one second. */
const SPACING_MS = 20;
const SECRET_LABEL = "burst";
/** About a second of streamed text: 10 pieces of 12 characters, 100 ms apart. */
const ANSWER = "CHUNK:12 DRIP:100";

interface Asked {
  ts: string;
  sentAtWall: number;
  marker: string;
}

/** The first accepted call in `threadTs` of one of `methods`, in call order. */
function firstCall(calls: ApiCall[], channel: string, threadTs: string, methods: string[]): ApiCall | undefined {
  return calls.find((c) => c.ok && methods.includes(c.method) && c.args.channel === channel && c.args.thread_ts === threadTs);
}

/** Pairs (i < j) whose answers' first messages came in the other order. */
function inversions(order: number[]): number {
  let n = 0;
  for (let i = 0; i < order.length; i++) for (let j = i + 1; j < order.length; j++) if (order[j] < order[i]) n++;
  return n;
}

async function busyChannel(s: Setup, label: string): Promise<Result[]> {
  const run = `${SECRET_LABEL}${Date.now().toString(36)}`;
  const channel = `CBURST${run.toUpperCase()}`;
  const asked: Asked[] = [];
  const sends = Array.from({ length: BURST }, async (_, i) => {
    await new Promise((r) => setTimeout(r, i * SPACING_MS));
    const marker = `${run}x${i}`;
    const filler = "word ".repeat(20);
    const payload = mentionEvent(s.slack, { channel, text: `${ANSWER} SAY: ${marker} ${filler}done-${marker}`, user: `U0B${i}` });
    const ts = String(payload.event.ts);
    asked[i] = { ts, sentAtWall: Date.now(), marker };
    const done = s.arrivals.expect(`done:${channel}:${ts}`, 240_000);
    await post(`${s.balancer.url}/slack/events`, payload);
    await done.catch(() => undefined);
  });
  await Promise.all(sends);
  const calls = s.slack.calls;
  const places: number[] = [];
  const firsts: { i: number; at: number; seq: number }[] = [];
  const appends: number[] = [];
  let answered = 0;
  let whole = 0;
  for (const [i, a] of asked.entries()) {
    const note = firstCall(calls, channel, a.ts, ["chat.postEphemeral"]);
    const first = firstCall(calls, channel, a.ts, ["chat.startStream", "chat.postMessage"]);
    const told = note ?? first;
    if (told) places.push(told.at - a.sentAtWall);
    const reply = s.slack.ws.everything(channel).find((m) => m.thread_ts === a.ts && m.bot_id && JSON.stringify(m).includes(`done-${a.marker}`));
    if (!reply || !first) continue;
    answered++;
    firsts.push({ i, at: first.at, seq: calls.indexOf(first) });
    if (first.method === "chat.postMessage") whole++;
    appends.push(calls.filter((c) => c.ok && c.method === "chat.appendStream" && c.args.channel === channel && c.args.ts === reply.ts).length);
  }
  const order = firsts.sort((x, y) => x.seq - y.seq).map((f) => f.i);
  const out = [
    single(`${label}: answered`, "of 50", answered, BURST, "each thread got its own answer"),
    single(`${label}: order inversions`, "pairs", inversions(order), answered, "answers' first messages out of the order asked"),
    summarize(`${label}: time to place`, "ms", places, "mention POST → the ⏳ note with its place (or its answer's first message when it went at once)"),
    summarize(`${label}: appends per answer`, "calls", appends, "chat.appendStream after the answer's first message; 0 = posted whole"),
    single(`${label}: answers posted whole`, "answers", whole, answered, "first message already the whole answer (chat.postMessage)"),
  ];
  console.log(`\n[bench] ${label}: ${answered}/${BURST} answered, ${inversions(order)} inversions, place p50 ${out[2].median} ms p99 ${out[2].p99} ms, appends p50 ${out[3].median} (p99 ${out[3].p99}), ${whole} posted whole`);
  return out;
}

export async function burstSuite(stack: BenchStack): Promise<Result[]> {
  const results: Result[] = [];
  for (const replicas of [1, 2]) {
    const s = await startSetup(stack, replicas);
    try {
      // Warm each replica's connections and the Worker's rooms code.
      for (let i = 0; i < 2 * replicas; i++) {
        const channel = `CBWARM${replicas}X${i}`;
        const payload = mentionEvent(s.slack, { channel, text: "SAY: warm" });
        const done = s.arrivals.expect(`done:${channel}:${payload.event.ts}`, 60_000);
        await post(`${s.balancer.url}/slack/events`, payload);
        await done;
      }
      results.push(...(await busyChannel(s, `one busy channel, slack ×${replicas}`)));
    } finally {
      await s.close();
    }
  }
  return results;
}
