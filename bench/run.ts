import { readFileSync } from "node:fs";
import { loadNow, report } from "./report.ts";
import { startBenchStack } from "./stack.ts";
import type { Result } from "./stats.ts";
import type { BotBenchOptions } from "./suites/bot-common.ts";
import { discordSuite } from "./suites/discord.ts";
import { prewarmSuite } from "./suites/prewarm.ts";
import { slackSuite } from "./suites/slack.ts";
import { workerLatency } from "./suites/worker-latency.ts";
import { storageCost } from "./suites/worker-storage.ts";
import { workerThroughput } from "./suites/worker-throughput.ts";

/**
 * `pnpm bench`: every benchmark in one run against the real Worker (workerd
 * under wrangler) and the real bots (each in its own process), with fake Slack,
 * Discord, model and executor on 127.0.0.1. Prints the table and writes
 * results.json and RESULTS.md. Benchmarks report; they never fail: a suite that
 * breaks is named in the report and the run goes on.
 */

/** The issue allows 10 minutes on 2 cores; suites not started by then are skipped and named. */
const BUDGET_MS = 9 * 60_000;
const SLACK: BotBenchOptions = { warmup: 20, samples: 400, slashSamples: 200, turns: 1_000, settleMs: 1_000 };
const DISCORD: BotBenchOptions = { warmup: 20, samples: 800, slashSamples: 0, turns: 1_000, settleMs: 1_000 };

const started = performance.now();
const loadAtStart = loadNow();
const results: Result[] = [];
const problems: string[] = [];

async function suite(name: string, fn: () => Promise<Result[]>): Promise<void> {
  if (performance.now() - started > BUDGET_MS) {
    problems.push(`${name}: skipped, the run was past its ${BUDGET_MS / 60_000}-minute budget`);
    return;
  }
  const t0 = performance.now();
  process.stdout.write(`[bench] ${name}… `);
  try {
    results.push(...(await fn()));
    console.log(`${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } catch (err) {
    console.log("failed");
    problems.push(`${name}: ${(err as Error)?.message ?? err}`);
  }
}

async function main(): Promise<void> {
  // The "instant executor": commands are answered without starting a shell, so the
  // one-command rows measure Duet, not /bin/sh start-up (the prewarm suite uses a real spawn).
  const stack = await startBenchStack({ instantExecutor: true });
  try {
    // The first request starts the isolate (seconds under wrangler dev); no figure should carry it.
    await stack.client.message("cli-bench-warm", { text: "SAY: warm <run>true</run>" });
    await suite("worker: round trips", () => workerLatency(stack));
    await suite("worker: state per message", () => storageCost(stack));
    await suite("worker: throughput and CPU", () => workerThroughput(stack));
    await suite("slack: HTTP mode", () => slackSuite(stack, "http", SLACK));
    await suite("slack: Socket Mode", () => slackSuite(stack, "socket", SLACK));
    await suite("discord", () => discordSuite(stack, DISCORD));
  } finally {
    await stack.stop();
  }
  await suite("prewarm on/off", () => prewarmSuite(20));
  const notes = readFileSync(new URL("./NOTES.md", import.meta.url), "utf8");
  report(results, problems, (performance.now() - started) / 1000, loadAtStart, notes);
  for (const p of problems) console.error(`[bench] ${p}`);
}

main().then(
  // Fakes and the Worker are stopped; exit without waiting on their idle timers.
  () => process.exit(0),
  (err) => {
    // Only a run that could not start at all fails; a broken suite is reported above.
    console.error(`[bench] could not run: ${(err as Error)?.stack ?? err}`);
    process.exit(1);
  },
);
