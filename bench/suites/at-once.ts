import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BOT_ENTRIES, bundle } from "../../scripts/build/bundle.ts";
import { BUILT_NODE_FLAGS } from "../../scripts/build/runtime.ts";
import { mentionEvent, startFakeSlack } from "../../test/fakes/slack/index.ts";
import { Arrivals } from "../arrivals.ts";
import { spawnBuiltBot } from "../bots/process.ts";
import { cpuMs } from "../proc.ts";
import type { BenchStack } from "../stack.ts";
import { single, summarize, type Result } from "../stats.ts";
import { watchSlack } from "../watch.ts";
import { postSlackEvent } from "./slack-post.ts";
import { slackBotEnv, slackHttp } from "../../test/helpers/bot-env.ts";

/**
 * 200 mentions at once in 200 channels, answered live by one built Slack bot
 * (HTTP mode, streaming on, as `pnpm start:slack` runs it): each answer is
 * streamed in pieces for about half a second and runs one command. Printed:
 * the bot's CPU per streamed turn (its main thread and V8's helpers, /proc),
 * the Web API calls per turn the fake Slack received (by method),
 * the time from the event to the answer's first words at the fake Slack (p50,
 * p99), and the bot's RSS idle and at its peak. Run twice in one go: with the
 * production heap flags and with Node's defaults, so the flags' cost in CPU
 * and their saving in memory are read side by side.
 *
 * `DUET_BENCH_CPU_PROF=<dir>` writes a V8 CPU profile of each bot there
 * (`node --cpu-prof`), to see where the CPU per turn goes.
 */

const SECRET = "bench-at-once-secret";
/** `DUET_BENCH_AT_ONCE_TURNS` sets a smaller burst (its rows then name that size), for a quicker reading on a busy machine. */
const TURNS = Number(process.env.DUET_BENCH_AT_ONCE_TURNS) || 200;
/** `DUET_BENCH_AT_ONCE_DEFAULTS=0` skips the second burst with Node's heap defaults. */
const WITH_DEFAULTS = process.env.DUET_BENCH_AT_ONCE_DEFAULTS !== "0";
/** The 200 events leave within a second, as a busy workspace's would. */
const SPACING_MS = 5;
const WARMUP = 10;
/** How long after a turn's end mark its first words may still arrive before the turn counts as unanswered. */
const MISSING_AFTER_MS = 5_000;
/** ~250 characters in 16-character pieces 30 ms apart: a live answer of about half a second, then a command. */
const ANSWER = "Let me look at that for you. ".repeat(8);
const SCRIPT = (words: string, marker: string) => `DRIP:30 CHUNK:16 SAY: ${words} ${ANSWER}<run>echo ${marker}</run>`;
/** Kept after the run (with the bundle's source map beside it) when profiling, so the profile can be read. */
const KEEP_BUILD = Boolean(process.env.DUET_BENCH_CPU_PROF);

async function post(url: string, payload: unknown): Promise<number> {
  const { sentAt, status } = await postSlackEvent(url, SECRET, payload);
  if (status !== 200) throw new Error(`at once: the bot answered ${status} to a mention`);
  return sentAt;
}

interface Run {
  cpuPerTurn: number;
  /** Web API calls at the fake Slack over the burst, per method, per turn. */
  callsPerTurn: Map<string, number>;
  firstWords: number[];
  /** What the threads of the turns without an answer said. */
  missing: string[];
  idleMiB: number;
  peakMiB: number;
}

async function oneRun(stack: BenchStack, builtDir: string, nodeFlags: readonly string[], tag: string): Promise<Run> {
  const slack = await startFakeSlack();
  const arrivals = new Arrivals();
  const unwatch = watchSlack(slack, arrivals);
  const prof = process.env.DUET_BENCH_CPU_PROF;
  const flags = prof ? [...nodeFlags, "--cpu-prof", `--cpu-prof-dir=${prof}`, `--cpu-prof-name=at-once-${tag}.cpuprofile`] : nodeFlags;
  const bot = await spawnBuiltBot(
    builtDir,
    "slack",
    slackBotEnv(slack, stack.workerUrl, stack.token, slackHttp(SECRET)),
    flags,
  ).catch(async (err) => {
    unwatch();
    await slack.close();
    throw err;
  });
  const url = `http://127.0.0.1:${bot.port}/slack/events`;
  const run = `${tag}${Date.now().toString(36)}`;
  /** One turn's first-words time, or NaN (and a line in `missing`) when it had none: a burst's refusals are figures, not failures. */
  const turn = (channel: string, i: number, delayMs: number) =>
    oneTurn(channel, i, delayMs).catch((err: unknown) => {
      missing.push(`(the event was not delivered: ${(err as Error).message})`);
      return NaN;
    });
  const oneTurn = async (channel: string, i: number, delayMs: number) => {
    await new Promise((r) => setTimeout(r, delayMs));
    // First in the answer and shorter than a piece, so the answer's first piece carries it whole (a live answer appends pieces, never the text so far).
    const words = `w${i}q`;
    const payload = mentionEvent(slack, { channel, text: SCRIPT(words, `${run}-${i}`) });
    const done = arrivals.expect(`done:${channel}:${payload.event.ts}`, 240_000);
    const seen = arrivals.expectText(words, 240_000);
    const sentAt = await post(url, payload);
    const ended = await done.then(() => true, () => false);
    // A turn that ended without its answer (refused, failed) is counted, with what the thread said, not waited for.
    const at = await Promise.race([seen.catch(() => null), new Promise<null>((r) => setTimeout(() => r(null), MISSING_AFTER_MS))]);
    if (at === null) missing.push((ended ? "" : "(no end mark) ") + slack.ws.thread(channel, String(payload.event.ts)).map((m) => m.text).join(" / ").slice(0, 200));
    return at === null ? NaN : at - sentAt;
  };
  const missing: string[] = [];
  try {
    // Warm-up, one at a time: the bot's connections, compiled code and the Worker's rooms code.
    for (let i = 0; i < WARMUP; i++) await turn(`CW${run.toUpperCase()}X${i}`, i, 0);
    await new Promise((r) => setTimeout(r, 1_000));
    const idleMiB = bot.rss();
    const cpuBefore = cpuMs(bot.pid);
    const callsBefore = slack.calls.length;
    missing.length = 0;
    const firstWords = await Promise.all(Array.from({ length: TURNS }, (_, i) => turn(`CA${run.toUpperCase()}X${i}`, WARMUP + i, i * SPACING_MS)));
    const cpuPerTurn = (cpuMs(bot.pid) - cpuBefore) / TURNS;
    const callsPerTurn = new Map<string, number>();
    for (const { method } of slack.calls.slice(callsBefore)) callsPerTurn.set(method, (callsPerTurn.get(method) ?? 0) + 1 / TURNS);
    return { cpuPerTurn, callsPerTurn, firstWords: firstWords.filter((x) => !Number.isNaN(x)), missing: [...missing], idleMiB, peakMiB: bot.rss(true) };
  } finally {
    await bot.stop();
    unwatch();
    await slack.close();
  }
}

/** Node's own heap sizing: the production flags without the young generation's cap and the size preference. */
const NODE_DEFAULT_HEAP = BUILT_NODE_FLAGS.filter((f) => !f.startsWith("--max-semi-space-size") && f !== "--optimize-for-size");

/** The rows' name for the bot as `pnpm start:slack` runs it. */
export const AT_ONCE_PRODUCTION = `slack (built) ${TURNS} at once, production flags`;

export async function atOnceSuite(stack: BenchStack): Promise<Result[]> {
  const builtDir = mkdtempSync(join(tmpdir(), "duet-bench-at-once-"));
  try {
    await bundle(builtDir, { ...BOT_ENTRIES, probe: "bench/bots/probe.ts" });
    const results: Result[] = [];
    const runs = [
      ["production flags", BUILT_NODE_FLAGS, "prod"],
      ["Node's heap defaults", NODE_DEFAULT_HEAP, "defaults"],
    ] as const;
    for (const [label, flags, tag] of WITH_DEFAULTS ? runs : runs.slice(0, 1)) {
      // A run that breaks leaves the other's figures standing.
      const r = await oneRun(stack, builtDir, flags, tag).catch((err: unknown) => {
        console.error(`[bench] at once, ${label}: ${(err as Error).message}`);
        return null;
      });
      if (!r) continue;
      const name = `slack (built) ${TURNS} at once, ${label}`;
      const how = `node ${flags.join(" ")}; ${TURNS} mentions within 1 s over ${TURNS} channels, live answers of ~0.5 s and one command each`;
      results.push(
        single(`${name}: bot CPU per streamed turn`, "ms", r.cpuPerTurn, TURNS, `user + system, /proc; ${how}; target ≤ 15`),
        single(`${name}: Slack calls per streamed turn`, "calls", [...r.callsPerTurn.values()].reduce((a, b) => a + b, 0), TURNS, [...r.callsPerTurn].sort((a, b) => b[1] - a[1]).map(([m, n]) => `${m} ${+n.toFixed(2)}`).join(", ")),
        summarize(`${name}: first words`, "ms", r.firstWords, `event POST → the answer's first words at the fake Slack; target p50 ≤ 2000`),
        single(`${name}: turns without an answer`, "turns", r.missing.length, TURNS, r.missing.length ? `e.g. ${JSON.stringify(r.missing[0])}` : "every turn's first words arrived"),
        single(`${name}: bot RSS idle`, "MiB", r.idleMiB, 1, "VmRSS after the warm-up, before the burst"),
        single(`${name}: bot peak RSS`, "MiB", r.peakMiB, 1, "VmHWM over the whole run"),
      );
    }
    return results;
  } finally {
    if (KEEP_BUILD) console.log(`[bench] at once: the bundles profiled are in ${builtDir}`);
    else rmSync(builtDir, { recursive: true, force: true });
  }
}
