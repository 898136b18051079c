import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BOT_ENTRIES, bundle } from "../scripts/build/bundle.ts";
import { loadNow, previousRun, report } from "./report.ts";
import { startBenchStack } from "./stack.ts";
import type { Result } from "./stats.ts";
import type { BotBenchOptions } from "./suites/bot-common.ts";
import { atOnceSuite } from "./suites/at-once.ts";
import { bundleSize } from "./suites/bundle.ts";
import { burstSuite } from "./suites/burst.ts";
import { discordLiveSuite, discordSuite } from "./suites/discord.ts";
import { filesSuite } from "./suites/files.ts";
import { OUTBOX_GRACE_MS, outboxSuite } from "./suites/outbox.ts";
import { prewarmSuite } from "./suites/prewarm.ts";
import { recallOptions, recallSuite } from "./suites/recall.ts";
import { replicasSuite } from "./suites/replicas.ts";
import { sandboxFairSuite } from "./suites/sandbox-fair.ts";
import { sideBySide } from "./suites/side-by-side.ts";
import { slackLiveSuite, slackSuite } from "./suites/slack.ts";
import { streamRedactCpu } from "./suites/stream-redact.ts";
import { toolsSuite } from "./suites/tools.ts";
import { appHomeSuite } from "./suites/app-home.ts";
import { repoSuite } from "./suites/repo.ts";
import { tracingSuite } from "./suites/tracing.ts";
import { workerLatency } from "./suites/worker-latency.ts";
import { storageCost } from "./suites/worker-storage.ts";
import { workerThroughput } from "./suites/worker-throughput.ts";
import { workspaceKeepSuite } from "./suites/workspace-keep.ts";

/**
 * `pnpm bench`: every benchmark in one run against the real Worker (workerd
 * under wrangler) and the real bots (each in its own process), with fake Slack,
 * Discord, model and executor on 127.0.0.1. Prints the table and writes
 * results.json and RESULTS.md. Benchmarks report; they never fail: a suite that
 * breaks is named in the report and the run goes on.
 *
 * `pnpm bench <group>...` runs only those groups (names in GROUPS); their figures
 * replace the same groups' figures in results.json and RESULTS.md, the rest are kept
 * from the previous run. E.g. `pnpm bench side-by-side`. `pnpm bench --against
 * <commit> [group]...` measures them beside an older commit's (bench/against.ts).
 */

/** The issue allows 10 minutes on 2 cores; suites not started by then are skipped and named. */
const BUDGET_MS = 9 * 60_000;
const SLACK: BotBenchOptions = { warmup: 20, samples: 400, slashSamples: 200, turns: 1_000, settleMs: 1_000 };
const DISCORD: BotBenchOptions = { warmup: 20, samples: 800, slashSamples: 0, turns: 1_000, settleMs: 1_000 };
/** The built bots: fewer timed samples (100 per row with a p99; the memory figures are what they are here for), the same 1,000 turns. */
const BUILT_SLACK: BotBenchOptions = { ...SLACK, samples: 200, slashSamples: 100 };
/** discord.js's default limit of 50 requests/s holds in the built bot; a turn makes 2 calls, so at most 20 turns a second. */
const BUILT_DISCORD: BotBenchOptions = { ...DISCORD, samples: 400, turnGapMs: 50 };
/** Bot restarts timed for the outbox: each starts a bot (about a second), so few. */
const OUTBOX_SAMPLES = 30;
/** Live answers, timed once per platform (Slack in HTTP mode): they measure the live path, not the transport. */
const LIVE_SAMPLES = 100;

/** The groups `pnpm bench <group>` can select; all of them, in this order, without arguments. */
const GROUPS = ["worker", "slack", "discord", "live", "built", "replicas", "side-by-side", "prewarm", "bundle", "redaction", "files", "workspace", "outbox", "sandbox", "recall", "tracing", "at-once", "tools", "burst", "home", "repo"] as const;
type Group = (typeof GROUPS)[number];

const started = performance.now();
const loadAtStart = loadNow();
const results: Result[] = [];
const problems: string[] = [];

async function suite(group: Group, name: string, fn: () => Promise<Result[]>): Promise<void> {
  if (performance.now() - started > BUDGET_MS) {
    problems.push(`${name}: skipped, the run was past its ${BUDGET_MS / 60_000}-minute budget`);
    return;
  }
  const t0 = performance.now();
  process.stdout.write(`[bench] ${name}… `);
  try {
    results.push(...(await fn()).map((r) => ({ ...r, suite: group })));
    console.log(`${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } catch (err) {
    console.log("failed");
    problems.push(`${name}: ${(err as Error)?.message ?? err}`);
  }
}

/** The bots as `pnpm start:*` and the image run them: `pnpm build`'s bundles, plus the probe the runner asks for heap figures. */
async function builtSuites(stack: Parameters<typeof slackSuite>[0]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "duet-bench-built-"));
  try {
    await bundle(dir, { ...BOT_ENTRIES, probe: "bench/bots/probe.ts" });
    await suite("built", "slack: HTTP mode, built", () => slackSuite(stack, "http", BUILT_SLACK, dir));
    await suite("built", "slack: Socket Mode, built", () => slackSuite(stack, "socket", BUILT_SLACK, dir));
    await suite("built", "discord, built", () => discordSuite(stack, BUILT_DISCORD, dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The groups named on the command line (pnpm 12 passes a literal `--` through), or all of them. */
function selectedGroups(argv: string[]): Group[] {
  const names = argv.filter((a) => a !== "--");
  const unknown = names.filter((n) => !(GROUPS as readonly string[]).includes(n));
  if (unknown.length) {
    console.error(`[bench] unknown group ${unknown.join(", ")}; the groups are: ${GROUPS.join(", ")}`);
    process.exit(2);
  }
  return names.length ? GROUPS.filter((g) => names.includes(g)) : [...GROUPS];
}

async function main(): Promise<void> {
  if (process.argv.includes("--against")) {
    // `pnpm bench --against <commit> [groups…]`: this tree beside an older commit, in one run (bench/against.ts).
    const { runAgainst } = await import("./against.ts");
    return runAgainst(process.argv.slice(2));
  }
  const groups = selectedGroups(process.argv.slice(2));
  const on = (g: Group) => groups.includes(g);
  if (on("worker") || on("slack") || on("discord") || on("live") || on("built")) {
    // The "instant executor": commands are answered without starting a shell, so the
    // one-command rows measure Duet, not /bin/sh start-up (the prewarm suite uses a real spawn).
    const stack = await startBenchStack({ instantExecutor: true });
    try {
      // The first request starts the isolate (seconds under wrangler dev); no figure should carry it.
      await stack.client.message("cli-bench-warm", { text: "SAY: warm <run>true</run>" });
      if (on("worker")) {
        await suite("worker", "worker: round trips", () => workerLatency(stack));
        await suite("worker", "worker: state per message", () => storageCost(stack));
        await suite("worker", "worker: throughput and CPU", () => workerThroughput(stack));
      }
      if (on("slack")) {
        await suite("slack", "slack: HTTP mode", () => slackSuite(stack, "http", SLACK));
        await suite("slack", "slack: Socket Mode", () => slackSuite(stack, "socket", SLACK));
      }
      if (on("discord")) await suite("discord", "discord", () => discordSuite(stack, DISCORD));
      // First words and a growing answer: with their platform's rows (and under its group, as bench:against reads
      // them), or on their own (`pnpm bench live`, a minute or two).
      if (on("slack") || on("live")) await suite(on("slack") ? "slack" : "live", "slack: live answers (HTTP mode)", () => slackLiveSuite(stack, LIVE_SAMPLES));
      if (on("discord") || on("live")) await suite(on("discord") ? "discord" : "live", "discord: live answers", () => discordLiveSuite(stack, LIVE_SAMPLES));
      if (on("built")) await builtSuites(stack);
    } finally {
      await stack.stop();
    }
  }
  if (on("replicas")) {
    // Its own Worker: it keeps Slack installations (DUET_STORE_KEY) for the lookup figures.
    const stack = await startBenchStack({ instantExecutor: true, vars: { DUET_STORE_KEY: "bench-store-key-0123456789abcdef0123456789" } });
    try {
      await stack.client.message("cli-bench-warm", { text: "SAY: warm <run>true</run>" });
      await suite("replicas", "slack replicas: bursts, one and two behind a balancer", () => replicasSuite(stack));
    } finally {
      await stack.stop();
    }
  }
  if (on("at-once")) {
    const stack = await startBenchStack({ instantExecutor: true });
    try {
      await stack.client.message("cli-bench-warm", { text: "SAY: warm <run>true</run>" });
      await suite("at-once", "slack (built): 200 at once, CPU per turn and first words", () => atOnceSuite(stack));
    } finally {
      await stack.stop();
    }
  }
  if (on("burst")) {
    const stack = await startBenchStack({ instantExecutor: true });
    try {
      await stack.client.message("cli-bench-warm", { text: "SAY: warm" });
      await suite("burst", "one busy channel: 50 mentions in 1 s, one and two replicas", () => burstSuite(stack));
    } finally {
      await stack.stop();
    }
  }
  if (on("home")) {
    const stack = await startBenchStack({ instantExecutor: true });
    try {
      await suite("home", "slack App Home: 200 rooms, 1,000 openings", () => appHomeSuite(stack));
    } finally {
      await stack.stop();
    }
  }
  // Its own two Workers, started after the shared stack has stopped, so nothing else runs beside them.
  if (on("side-by-side")) await suite("side-by-side", "side by side: seed design and Duet", () => sideBySide());
  if (on("recall")) await suite("recall", "recall: rows, bytes, time and tokens of a room that remembers", () => recallSuite(recallOptions(process.env.DUET_BENCH_RECALL)));
  if (on("repo")) await suite("repo", "repo: link → checkout beside git clone, click → pull request", () => repoSuite());
  if (on("tools")) await suite("tools", "tools: an MCP tool call beside a direct command, prompt tokens per server", () => toolsSuite());
  if (on("prewarm")) await suite("prewarm", "prewarm on/off", () => prewarmSuite(20));
  if (on("bundle")) await suite("bundle", "worker: production bundle", () => bundleSize());
  if (on("redaction")) await suite("redaction", "live redaction: CPU", () => streamRedactCpu());
  // Its own four Workers (tracing off, on, on with a slow collector, on with none), started after the shared stack has stopped.
  if (on("tracing")) await suite("tracing", "tracing on/off: Worker CPU and round trip per turn, Slack bot RSS", () => tracingSuite());
  if (on("files")) await suite("files", "files: 20 MiB in and out", () => filesSuite());
  if (on("sandbox")) await suite("sandbox", "sandbox: a room beside four long commands", () => sandboxFairSuite());
  if (on("workspace")) await suite("workspace", "workspace: kept across sleep (cloudflare)", () => workspaceKeepSuite());
  if (on("outbox")) {
    // A Worker of its own with a short grace time, so waiting answers are offered within the run.
    const stack = await startBenchStack({ instantExecutor: true, vars: { DUET_DELIVERY_GRACE_MS: String(OUTBOX_GRACE_MS) } });
    try {
      await suite("outbox", "outbox: rows and delivery after a restart", () => outboxSuite(stack, OUTBOX_SAMPLES));
    } finally {
      await stack.stop();
    }
  }
  const notes = readFileSync(new URL("./NOTES.md", import.meta.url), "utf8");
  const partial = groups.length < GROUPS.length ? { groups, previous: previousRun() } : undefined;
  report(results, problems, (performance.now() - started) / 1000, loadAtStart, notes, partial);
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
