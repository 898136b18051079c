import { startFakeCollector } from "../../test/fakes/otlp.ts";
import { mentionEvent } from "../../test/fakes/slack/index.ts";
import { pool } from "../pool.ts";
import { type BenchStack, startBenchStack } from "../stack.ts";
import { single, summarize, type Result } from "../stats.ts";
import { memoryNow, ONE_COMMAND, PACED_CHANNELS, WHOLE_ANSWERS } from "./bot-common.ts";
import { startSlackBench } from "./slack.ts";
import { workerdCpuDuring } from "./worker-cpu.ts";

/**
 * What tracing costs a turn in the Worker: the same turns (one model call,
 * one command) against a Worker with OTEL_EXPORTER_OTLP_ENDPOINT unset, then
 * set to a fake collector on 127.0.0.1. Each runs in a Worker of its own,
 * started one after the other, so nothing else shares the cores. The CPU is
 * the runtime's (the workerd that runs the Worker, from /proc), per turn; the
 * time is the turn's round trip, what a person waits for its text. Then a
 * Slack bot (its own process, exporting when the Worker does) answers as many
 * mentions, and its RSS is read once it settled.
 */

const WARMUP = 20;
/** Rooms the turns rotate through: a turn never waits behind the one before in its room. */
const ROOMS = 20;

interface Side {
  cpuMs: number;
  latencies: number[];
  botRssMiB: number;
}

/** A Slack bot's RSS (MiB, /proc) after `turns` mentions with one command each, 8 at a time. */
async function botRss(stack: BenchStack, vars: Record<string, string>, turns: number): Promise<number> {
  const bench = await startSlackBench(stack, "http", { ...WHOLE_ANSWERS, ...vars });
  try {
    const channels = Array.from({ length: PACED_CHANNELS }, (_, i) => `CTRACE${i}`);
    await pool(turns, 8, async (i) => {
      const channel = channels[i % channels.length];
      const payload = mentionEvent(bench.slack, { channel, text: ONE_COMMAND });
      const done = bench.arrivals.expect(`done:${channel}:${String(payload.event.ts)}`);
      await bench.deliver("events_api", payload);
      await done;
    });
    return (await memoryNow(bench.bot, 1_000)).rss;
  } finally {
    await bench.close();
  }
}

async function measure(label: string, vars: Record<string, string>, turns: number): Promise<Side> {
  const stack = await startBenchStack({ instantExecutor: true, vars });
  try {
    const room = (i: number) => `cli-bench-tracing-${label}-${i % ROOMS}`;
    for (let i = 0; i < WARMUP; i++) await stack.client.message(room(i), { text: ONE_COMMAND });
    const latencies: number[] = [];
    const cpu = await workerdCpuDuring(stack, async () => {
      for (let i = 0; i < turns; i++) {
        const t0 = performance.now();
        await stack.client.message(room(i), { text: ONE_COMMAND });
        latencies.push(performance.now() - t0);
      }
    });
    return { cpuMs: cpu.runtime / turns, latencies, botRssMiB: await botRss(stack, vars, turns) };
  } finally {
    await stack.stop();
  }
}

export async function tracingSuite(turns = 200): Promise<Result[]> {
  const collector = await startFakeCollector();
  try {
    const off = await measure("off", {}, turns);
    const on = await measure("on", { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url }, turns);
    const pct = (a: number, b: number) => `${(((b - a) / a) * 100).toFixed(1)} % over off`;
    const median = (s: number[]) => summarize("", "", s).median;
    return [
      single("tracing off: Worker CPU per turn", "ms", off.cpuMs, turns, "the runtime's user + system CPU, /proc; one model call and one command a turn"),
      single("tracing on: Worker CPU per turn", "ms", on.cpuMs, turns, `${pct(off.cpuMs, on.cpuMs)}; ${collector.spans.length} spans exported`),
      summarize("tracing off: turn round trip", "ms", off.latencies),
      summarize("tracing on: turn round trip", "ms", on.latencies, pct(median(off.latencies), median(on.latencies))),
      single(`tracing off: Slack bot RSS after ${turns} turns`, "MiB", off.botRssMiB, 1, "VmRSS, tsx loader included"),
      single(`tracing on: Slack bot RSS after ${turns} turns`, "MiB", on.botRssMiB, 1, `${(on.botRssMiB - off.botRssMiB).toFixed(1)} MiB over off`),
    ];
  } finally {
    await collector.close();
  }
}
