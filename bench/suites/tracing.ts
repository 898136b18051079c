import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { BOT_ENTRIES, bundle } from "../../scripts/build/bundle.ts";
import { startFakeCollector } from "../../test/fakes/otlp.ts";
import { mentionEvent } from "../../test/fakes/slack/index.ts";
import { pool } from "../pool.ts";
import { type BenchStack, startBenchStack } from "../stack.ts";
import { single, summarize, type Result } from "../stats.ts";
import { rssMiB } from "../proc.ts";
import { memoryNow, ONE_COMMAND, PACED_CHANNELS, WHOLE_ANSWERS } from "./bot-common.ts";
import { startSlackBench } from "./slack.ts";
import { workerdCpuDuring } from "./worker-cpu.ts";

/**
 * What tracing costs a turn in the Worker, side by side: four Workers run at
 * once, each with the same turns (one model call, one command): tracing off
 * (OTEL_EXPORTER_OTLP_ENDPOINT unset), on (a fake collector on 127.0.0.1), on
 * with a collector 10 s slow per request, and on with a collector gone (its
 * port closed). Their turns go in blocks, in a rotating order, so the
 * machine's noise falls on all four alike. The CPU is each runtime's (the
 * workerd that runs the Worker, from /proc) during its own blocks, per turn;
 * the time is the turn's round trip, what a person waits for its text; the
 * runtime's RSS after all turns shows the span buffer bounded. Then the
 * built Slack bot (its own process, exporting through OpenTelemetry's SDK
 * when the Worker does) answers as many mentions with tracing off and on, and
 * its RSS is read once it settled, then answers mentions one at a time, each
 * timed from the event sent to its first visible text; the built bots'
 * bundles, which carry the SDK, are weighed.
 */

const WARMUP = 20;
/** Rooms the turns rotate through: a turn never waits behind the one before in its room. */
const ROOMS = 20;
/** Turns a side runs before the next side's block. */
const BLOCK = 20;
const SLOW_MS = 10_000;
/** Starts of the built bot each side, off and on in turn. */
const BOT_ROUNDS = 3;
/** Mentions a start of the bot answers one at a time, timed to their first visible text. */
const FIRST_TEXT_TURNS = 30;

interface Side {
  label: string;
  /** The side's rooms are named with it. */
  slug: string;
  vars: Record<string, string>;
  stack?: BenchStack;
  cpuMs: number;
  latencies: number[];
}

/** What a start of the built Slack bot showed: its memory after the paced turns, then each sequential turn's first visible text. */
interface BotRound {
  rss: number;
  heap: number;
  /** Mention sent → the first call at the fake Slack carrying the answer's words (ms), one turn at a time. */
  firstText: number[];
}

/**
 * A built Slack bot's memory after `turns` mentions with one command each, 8
 * at a time: RSS (MiB, /proc) and its heap after a GC; then FIRST_TEXT_TURNS
 * mentions one at a time, each in a channel of its own (no pace waits), timed
 * from the event sent to the first call carrying its words.
 */
async function botRound(stack: BenchStack, side: string, round: number, vars: Record<string, string>, turns: number, builtDir: string): Promise<BotRound> {
  const bench = await startSlackBench(stack, "http", { ...WHOLE_ANSWERS, ...vars }, builtDir);
  try {
    const channels = Array.from({ length: PACED_CHANNELS }, (_, i) => `CTRACE${i}`);
    await pool(turns, 8, async (i) => {
      const channel = channels[i % channels.length];
      const payload = mentionEvent(bench.slack, { channel, text: ONE_COMMAND });
      const done = bench.arrivals.expect(`done:${channel}:${String(payload.event.ts)}`);
      await bench.deliver("events_api", payload);
      await done;
    });
    const memory = await memoryNow(bench.bot, 1_000);
    const firstText: number[] = [];
    for (let i = 0; i < FIRST_TEXT_TURNS; i++) {
      const channel = `CFIRST${side.toUpperCase()}${round}X${i}`;
      const words = `ft${side}${round}x${i}q`;
      const payload = mentionEvent(bench.slack, { channel, text: `SAY: ${words} <run>true</run>` });
      const done = bench.arrivals.expect(`done:${channel}:${String(payload.event.ts)}`);
      const seen = bench.arrivals.expectText(words);
      const sentAt = performance.now();
      await bench.deliver("events_api", payload);
      firstText.push((await seen) - sentAt);
      await done;
    }
    return { rss: memory.rss, heap: memory.heapMiB, firstText };
  } finally {
    await bench.close();
  }
}

/** The built bots' bundles (the file each bot's process loads), raw and gzipped. */
function bundleRows(builtDir: string): Result[] {
  return ["slack", "discord"].map((bot) => {
    const code = readFileSync(join(builtDir, bot, "main.js"));
    const gzip = gzipSync(code, { level: 6 }).length / 1024;
    return single(`tracing: built ${bot} bot bundle`, "KiB", code.length / 1024, 1, `${bot}/main.js as \`pnpm build\` makes it, OpenTelemetry's SDK inside; gzip ${gzip.toFixed(1)} KiB`);
  });
}

/** `n` turns of `side` in its own rooms, its runtime's CPU counted while they run. */
async function block(side: Side, from: number, n: number): Promise<void> {
  const stack = side.stack!;
  const room = (i: number) => `cli-bench-tracing-${side.slug}-${i % ROOMS}`;
  const cpu = await workerdCpuDuring(stack, async () => {
    for (let i = from; i < from + n; i++) {
      const t0 = performance.now();
      await stack.client.message(room(i), { text: ONE_COMMAND });
      side.latencies.push(performance.now() - t0);
    }
  });
  side.cpuMs += cpu.runtime;
}

export const TRACING_CPU = "tracing: Worker CPU per turn, on over off";
export const TRACING_RSS = "tracing: Slack bot RSS, on over off";
export const TRACING_FIRST_TEXT = "tracing: Slack first visible text, on over off";

export async function tracingSuite(turns = 200): Promise<Result[]> {
  const builtDir = mkdtempSync(join(tmpdir(), "duet-bench-tracing-"));
  const collector = await startFakeCollector();
  const slow = await startFakeCollector();
  slow.delayMs = SLOW_MS;
  const gone = await startFakeCollector();
  const goneUrl = gone.url;
  await gone.close();
  const sides: Side[] = [
    { label: "off", slug: "off", vars: {}, cpuMs: 0, latencies: [] },
    { label: "on", slug: "on", vars: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url }, cpuMs: 0, latencies: [] },
    { label: `on, collector ${SLOW_MS / 1000} s slow`, slug: "slow", vars: { OTEL_EXPORTER_OTLP_ENDPOINT: slow.url }, cpuMs: 0, latencies: [] },
    { label: "on, collector gone", slug: "gone", vars: { OTEL_EXPORTER_OTLP_ENDPOINT: goneUrl }, cpuMs: 0, latencies: [] },
  ];
  try {
    for (const side of sides) {
      side.stack = await startBenchStack({ instantExecutor: true, vars: side.vars });
      for (let i = 0; i < WARMUP; i++) await side.stack.client.message(`cli-bench-tracing-${side.slug}-${i % ROOMS}`, { text: ONE_COMMAND });
    }
    for (let from = 0, round = 0; from < turns; from += BLOCK, round++) {
      const n = Math.min(BLOCK, turns - from);
      for (let k = 0; k < sides.length; k++) await block(sides[(k + round) % sides.length]!, from, n);
    }
    const runtimeRss = sides.map((side) => rssMiB(side.stack!.workerd.runtime));
    const [off, on] = sides as [Side, Side, Side, Side];
    // The bot as the image runs it (`pnpm build`'s bundle, production flags): the tsx loader's own memory would swamp the difference.
    await bundle(builtDir, { ...BOT_ENTRIES, probe: "bench/bots/probe.ts" });
    const median = (s: number[]) => summarize("", "", s).median;
    // A bot process's RSS moves by several MiB from one start to the next (the allocator, GC timing): rounds, off and on in turn, and their medians.
    const offMem: BotRound[] = [];
    const onMem: BotRound[] = [];
    for (let r = 0; r < BOT_ROUNDS; r++) {
      offMem.push(await botRound(off.stack!, "off", r, off.vars, turns, builtDir));
      onMem.push(await botRound(on.stack!, "on", r, on.vars, turns, builtDir));
    }
    const offFirst = offMem.flatMap((m) => m.firstText);
    const onFirst = onMem.flatMap((m) => m.firstText);
    const botSpans = collector.spans.filter((s) => s.service === "duet-slack").length;
    const offRss = median(offMem.map((m) => m.rss));
    const onRss = median(onMem.map((m) => m.rss));
    const offHeap = median(offMem.map((m) => m.heap));
    const onHeap = median(onMem.map((m) => m.heap));
    const pct = (a: number, b: number) => `${(((b - a) / a) * 100).toFixed(1)} % over off`;
    const offCpu = off.cpuMs / turns;
    return [
      ...sides.flatMap((side, i) => {
        const cpu = side.cpuMs / turns;
        const sent = side === on ? `; ${collector.spans.filter((s) => s.service === "duet-worker").length} Worker spans taken` : "";
        return [
          single(`tracing ${side.label}: Worker CPU per turn`, "ms", cpu, turns, side === off ? "the runtime's user + system CPU, /proc; one model call and one command a turn; four Workers side by side, blocks of 20 in turn" : `${pct(offCpu, cpu)}${sent}`),
          summarize(`tracing ${side.label}: turn round trip`, "ms", side.latencies, side === off ? "" : pct(median(off.latencies), median(side.latencies))),
          single(`tracing ${side.label}: Worker runtime RSS after ${turns} turns`, "MiB", runtimeRss[i]!, 1, side === off ? "VmRSS of the workerd that runs the Worker" : `${(runtimeRss[i]! - runtimeRss[0]!).toFixed(1)} MiB over off`),
        ];
      }),
      summarize(`tracing off: Slack bot RSS after ${turns} turns`, "MiB", offMem.map((m) => m.rss), `VmRSS, the built bot, ${BOT_ROUNDS} starts; heap after GC ${offHeap.toFixed(1)} MiB`),
      summarize(`tracing on: Slack bot RSS after ${turns} turns`, "MiB", onMem.map((m) => m.rss), `${(onRss - offRss).toFixed(1)} MiB over off; heap after GC ${onHeap.toFixed(1)} MiB (${(onHeap - offHeap).toFixed(1)} over off); ${botSpans} bot spans taken, sent by OpenTelemetry's SDK`),
      summarize("tracing off: Slack mention → first visible text", "ms", offFirst, `the built bot, one mention at a time, ${FIRST_TEXT_TURNS} after each start's paced turns; event sent → the first call at the fake Slack carrying the answer's words; one command a turn, whole answers (DUET_STREAMING=off)`),
      summarize("tracing on: Slack mention → first visible text", "ms", onFirst, `${pct(median(offFirst), median(onFirst))}; the bot and the Worker both exporting, starts off and on in turn`),
      ...bundleRows(builtDir),
      single(TRACING_CPU, "%", ((on.cpuMs - off.cpuMs) / off.cpuMs) * 100, turns, "the Worker runtime's CPU per turn, tracing on beside off in the same run"),
      single(TRACING_FIRST_TEXT, "%", ((median(onFirst) - median(offFirst)) / median(offFirst)) * 100, onFirst.length, "medians of the Slack mention → first visible text, tracing on beside off in the same run"),
      single(TRACING_RSS, "MiB", onRss - offRss, BOT_ROUNDS, "the built Slack bot's RSS after the same turns, exporting beside not; medians of the starts"),
    ];
  } finally {
    rmSync(builtDir, { recursive: true, force: true });
    for (const side of sides) await side.stack?.stop();
    await collector.close();
    await slow.close();
  }
}
