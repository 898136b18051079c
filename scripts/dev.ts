import { spawn } from "node:child_process";
import { join, relative } from "node:path";
import { ConfigError, StartupError, startExecutor, type RunningExecutor } from "@duet/sandbox";
import { onOutputClosed, onStopSignals } from "@duet/shared/stop-signals";
import { DUET_DIR, REPO_ROOT, TOKENS_FILE, devTokens, forwardedArgs } from "./dev-env.ts";
import { WorkerConfigError, parseWorkerFlags, spawnWorker, type WorkerFlags } from "./dev-worker.ts";
import { DevConfigError, describeModel, loadDevConfig, type DevConfig } from "./dev/config.ts";
import { readStat, watchLaunchers } from "./dev/launchers.ts";
import { startTraceCollector, TRACES_FILE } from "./dev/trace-store.ts";
import { signalGroup, stopGroup, supervise, type Supervised } from "./dev/processes.ts";
import { portFree, waitUntilAnswering } from "./dev/ready.ts";
import { workerNoise } from "./dev/worker-noise.ts";
import { modelEndpointProblem } from "./model-probe.ts";

/**
 * `pnpm dev`: the local sandbox executor (in this process), the Worker under
 * wrangler's dev server with no inspector (scripts/dev-worker.ts), and each bot
 * whose tokens are set, until Ctrl-C. One line says why when any of them cannot
 * start or dies.
 */

/** wrangler bundles the Worker and boots workerd; the first run on a busy 2-core machine is slow. */
const READY_TIMEOUT_MS = 120_000;
/** A bot finishes the answers in flight; workerd closes its sockets. Then SIGKILL. */
const STOP_GRACE_MS = 10_000;

const DEV_USAGE = `Usage: npm run dev [-- OPTIONS]

Starts the sandbox executor, the Worker and each bot whose tokens are set, until Ctrl-C
(or SIGTERM). Settings come from the environment (DUET_WORKER_PORT, SANDBOX_PORT,
DUET_HOME, MODEL_PROVIDER, MODEL, OPENAI_BASE_URL, SLACK_*, DISCORD_*; see README.md).

Options (passed on to the Worker):
  --port PORT         the Worker's port (default: DUET_WORKER_PORT, else 8787)
  --ip ADDRESS        the address the Worker listens on (default 127.0.0.1)
  --persist-to DIR    where the Worker keeps its state (default .duet/state)
  --var NAME:VALUE    one more variable for the Worker
  --background        started in the background by a script or service (also
                      DUET_DEV_DETACHED=1): keeps running after the script that
                      started it exits; SIGTERM to its process group stops it
  --help              this text`;

/** Not the Worker's: how `pnpm dev` itself runs. */
const BACKGROUND_FLAG = "--background";

const say = (line: string) => console.log(line);
const shown = (path: string) => (relative(process.cwd(), path).startsWith("..") ? path : relative(process.cwd(), path) || ".");

/** Set as soon as the executor starts starting, so a stop during its start-up still closes it. */
let executor: Promise<RunningExecutor> | undefined;
const children: Supervised[] = [];
let stopping = false;

/** A second request to stop while the first runs: do not wait for anyone (the rooms' disks stay mounted). */
function forceStop(): never {
  say("[dev] stopping at once: the rooms' disks may stay mounted until the next start");
  for (const c of children) signalGroup(c.pid, "SIGKILL");
  process.exit(130);
}

/** Stops bots first (they may still be answering through the Worker), then the Worker, then the sandbox. */
async function shutdown(reason: string, exitCode: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  say(`[dev] ${reason}`);
  const bots = children.filter((c) => c.name !== "worker");
  await Promise.all(bots.map((c) => stopGroup(c, "SIGTERM", STOP_GRACE_MS)));
  await Promise.all(children.filter((c) => c.name === "worker").map((c) => stopGroup(c, "SIGINT", STOP_GRACE_MS)));
  await executor?.then((e) => e.close(), () => {});
  say("[dev] stopped");
  process.exit(exitCode);
}

function fail(line: string): never {
  console.error(line);
  process.exit(1);
}

/** A child that dies on its own takes everything down: a half-running stack only confuses. */
function watch(s: Supervised): Supervised {
  children.push(s);
  void s.exited.then(({ code, signal }) => {
    if (!stopping) void shutdown(`${s.name} exited unexpectedly (${signal ?? `exit code ${code}`}); stopping everything`, 1);
  });
  return s;
}

async function startSandbox(config: DevConfig, token: string): Promise<RunningExecutor> {
  try {
    return await startExecutor({ port: config.sandboxPort, token, root: process.env.SANDBOX_ROOT || join(DUET_DIR, "sandboxes") }, say);
  } catch (err) {
    if (err instanceof StartupError || err instanceof ConfigError) fail(err.message);
    if ((err as NodeJS.ErrnoException).code === "EADDRINUSE") fail(`SANDBOX_PORT ${config.sandboxPort} is already in use on 127.0.0.1 (another npm run dev?)`);
    fail(`sandbox executor failed to start: ${(err as Error).message}`);
  }
}

function startBot(name: string, entry: string, env: NodeJS.ProcessEnv): Supervised {
  const child = spawn(join(REPO_ROOT, "node_modules", ".bin", "tsx"), [join(REPO_ROOT, entry)], {
    cwd: join(REPO_ROOT, "bots", name),
    env,
    detached: true, // its own process group, so stopping it reaches everything it started
    stdio: ["ignore", "pipe", "pipe"],
  });
  return watch(supervise(name, child, say));
}

/** How long the look at the model at start may take: the summary waits for it. */
const MODEL_PROBE_TIMEOUT_MS = 3_000;

/** An OpenAI-compatible endpoint that cannot be reached or refuses the key, said in the summary; asks would fail. */
function modelProblem(config: DevConfig, apiKey: string | undefined): Promise<string | null> {
  const { provider, baseUrl } = config.model;
  return provider === "openai" && baseUrl ? modelEndpointProblem(baseUrl, apiKey, MODEL_PROBE_TIMEOUT_MS) : Promise.resolve(null);
}

function summary(config: DevConfig, workerUrl: string, worker: Supervised, sandbox: RunningExecutor, bots: Map<string, Supervised>, modelIssue: string | null): string[] {
  const lines = [
    `  Worker   ${workerUrl}  (pid ${worker.pid}; state in ${shown(join(DUET_DIR, "state"))})`,
    `  sandbox  ${sandbox.url}  (isolation: ${sandbox.isolation}; network: ${sandbox.network}; workspaces in ${shown(sandbox.root)})`,
  ];
  for (const plan of config.bots) {
    const running = bots.get(plan.name);
    const label = plan.name === "slack" ? "Slack  " : "Discord";
    lines.push(`  ${label}  ${running ? `started (pid ${running.pid})` : `not started: ${plan.skip}`}`);
  }
  const [first, ...rest] = describeModel(config.model);
  lines.push(`  model    ${first}`, ...rest.map((l) => `           ${l}`));
  if (modelIssue) lines.push(`  warning  ${modelIssue} (asks fail until it answers)`);
  lines.push(`  tokens   ${shown(TOKENS_FILE)} (DUET_API_TOKEN for the bots and \`npm run -s duet\`)`);
  lines.push(`Try: npm run -s duet -- run demo 'uname -a'   or   npm run -s duet -- chat demo`);
  return lines;
}

/** Where to reach a Worker listening on `ip`: an "any address" is reached on loopback. */
function probeHost(ip: string | undefined): string {
  if (!ip || ip === "0.0.0.0") return "127.0.0.1";
  if (ip === "::") return "[::1]";
  return ip.includes(":") ? `[${ip}]` : ip;
}

async function main(): Promise<void> {
  const given = forwardedArgs(process.argv.slice(2));
  const detached = given.includes(BACKGROUND_FLAG) || process.env.DUET_DEV_DETACHED === "1";
  const args = given.filter((a) => a !== BACKGROUND_FLAG);
  if (args.includes("--help") || args.includes("-h")) {
    say(DEV_USAGE);
    process.exit(0);
  }
  let config: DevConfig;
  let flags: WorkerFlags;
  try {
    // The Worker's own arguments are checked here, before anything starts; --port wins over DUET_WORKER_PORT.
    flags = parseWorkerFlags(args);
    if (flags.port !== undefined && !/^\d{1,5}$/.test(flags.port)) throw new WorkerConfigError(`--port must be a port number from 1 to 65535, not ${flags.port}`);
    config = loadDevConfig(flags.port === undefined ? process.env : { ...process.env, DUET_WORKER_PORT: flags.port }, REPO_ROOT);
  } catch (err) {
    if (err instanceof DevConfigError) fail(err.message);
    if (err instanceof WorkerConfigError) fail(`pnpm dev: ${err.message}`);
    throw err;
  }
  onStopSignals((signal) => void shutdown(`${signal} received, stopping everything`, 0), forceStop);
  // Output piped to a reader that went away (tee ended by the same Ctrl-C): stop everything all the same, quietly.
  onOutputClosed(() => void shutdown("output closed, stopping everything", 0));
  // A SIGTERM to npm or pnpm, or their parent dying, reaches no one down here: watch for it.
  // In the background the parent (a script) is meant to go away: only npm or pnpm exiting counts.
  watchLaunchers((why) => void shutdown(`${why}; stopping everything`, 0), detached);

  // Looked at while the rest starts; the summary says what it found.
  const modelIssue = modelProblem(config, process.env.OPENAI_API_KEY);
  const tokens = devTokens();
  await portFree(config.workerPort).catch((err: NodeJS.ErrnoException) =>
    fail(`DUET_WORKER_PORT ${config.workerPort} is not free on 127.0.0.1 (${err.code}; another npm run dev?)`),
  );
  executor = startSandbox(config, tokens.SANDBOX_TOKEN);
  const sandbox = await executor;
  if (stopping) return;

  const workerUrl = `http://${probeHost(flags.ip)}:${config.workerPort}`;
  // With no collector of its own, the session keeps its last traces in .duet/ for `duet trace`.
  const traces = process.env.OTEL_EXPORTER_OTLP_ENDPOINT ? null : await startTraceCollector(join(DUET_DIR, TRACES_FILE));
  // Sent at once rather than batched: `duet trace` right after an ask should find it.
  const otlp = traces ? { OTEL_EXPORTER_OTLP_ENDPOINT: traces.url, OTEL_BSP_SCHEDULE_DELAY: "0" } : {};
  const workerEnv = { ...process.env, ...otlp, DUET_WORKER_PORT: String(config.workerPort), SANDBOX_URL: sandbox.url };
  const worker = watch(
    // wrangler's bindings table and workerd's hang-up notices are dropped: the summary below says what runs.
    supervise("worker", spawnWorker(args, workerEnv, { detached: true, stdio: ["ignore", "pipe", "pipe"] }), say, workerNoise()),
  );
  say(`[dev] starting the Worker on ${workerUrl} (sandbox at ${sandbox.url})...`);
  const ready = await waitUntilAnswering([`${workerUrl}/health`, `${sandbox.url}/api/ping`], Date.now() + READY_TIMEOUT_MS, () => stopping);
  if (!ready) {
    if (!stopping) await shutdown(`the Worker did not answer ${workerUrl}/health within ${READY_TIMEOUT_MS / 1000} s; stopping`, 1);
    return;
  }

  const botEnv = { ...process.env, ...otlp, DUET_WORKER_URL: workerUrl, DUET_API_TOKEN: tokens.DUET_API_TOKEN };
  const bots = new Map<string, Supervised>();
  for (const plan of config.bots) if (!plan.skip) bots.set(plan.name, startBot(plan.name, plan.entry, botEnv));

  say("[dev] running:");
  for (const line of summary(config, workerUrl, worker, sandbox, bots, await modelIssue)) say(line);
  say(
    detached
      ? `[dev] ready, in the background. SIGTERM to its process group stops everything: kill -TERM -- -${readStat(process.pid)?.pgid ?? process.pid}`
      : "[dev] ready. Ctrl-C stops everything.",
  );
}

main().catch((err: unknown) => {
  // Only a bug gets here; still one line, and nothing left running.
  void shutdown(`pnpm dev failed: ${err instanceof Error ? err.message : String(err)}`, 1);
});
