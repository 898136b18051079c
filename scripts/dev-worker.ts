import { spawn, type SpawnOptions } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ConfigError, parseEnv, WORKER_SETTING_VARS, workerSettingsSchema } from "@duet/shared";
import type { unstable_startWorker } from "wrangler";
import { onStopSignals } from "@duet/shared/stop-signals";
import { DUET_DIR, REPO_ROOT, devTokens, ensureDuetDir, ensurePrivateDir, forwardedArgs } from "./dev-env.ts";
import { ownUserOnly } from "./own-user-only.ts";

type StartInput = Parameters<typeof unstable_startWorker>[0];

/**
 * `pnpm dev:worker`: the Worker under wrangler's dev server (workerd) on
 * 127.0.0.1:8787 with its Durable Object state persisted under .duet/.
 * Started through wrangler's API rather than `wrangler dev`: the CLI always opens an
 * unauthenticated V8 inspector on a local port, through which any local user could
 * read the Worker's secrets; the API turns it off. Arguments: `--ip`, `--port`,
 * `--persist-to` replace this script's own values, `--var NAME:VALUE` adds a variable.
 * Every Worker setting set in the environment (the names of the Worker's config schema)
 * reaches the Worker through a 0600 file with the tokens, never a command line.
 */

/**
 * What wrangler is started with: no metrics, no calls out, and no Local Explorer.
 * wrangler 4.86 serves its explorer on the Worker's own port by default, with no
 * token: any local user could list every room and run SQL inside any of them.
 */
export const WRANGLER_QUIET_ENV = { WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", X_LOCAL_EXPLORER: "false" } as const;

/** A setting or argument the Worker cannot start with: one line for the person, no stack. */
export class WorkerConfigError extends Error {}

const USAGE = "accepted: --ip ADDRESS, --port PORT, --persist-to DIR, --var NAME:VALUE";

export interface WorkerFlags {
  ip?: string;
  port?: string;
  persistTo?: string;
  vars: Record<string, string>;
}

/** `--flag value` and `--flag=value`, after pnpm's `--`; anything else is refused with what is accepted. */
export function parseWorkerFlags(extra: string[]): WorkerFlags {
  const args = forwardedArgs(extra);
  const flags: WorkerFlags = { vars: {} };
  for (let i = 0; i < args.length; i++) {
    const [name, inline] = args[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    if (!["--ip", "--port", "--persist-to", "--var"].includes(name)) throw new WorkerConfigError(`unknown argument ${args[i]} (${USAGE})`);
    const value = inline ?? args[++i];
    if (value === undefined || value === "") throw new WorkerConfigError(`${name} needs a value (${USAGE})`);
    if (name === "--ip") flags.ip = value;
    if (name === "--port") flags.port = value;
    if (name === "--persist-to") flags.persistTo = value;
    if (name === "--var") {
      const at = value.indexOf(":");
      if (at < 1) throw new WorkerConfigError(`--var takes NAME:VALUE, not ${value}`);
      flags.vars[value.slice(0, at)] = value.slice(at + 1);
    }
  }
  return flags;
}

function parsePort(value: string, from: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port < 1 || port > 65535) throw new WorkerConfigError(`${from} must be a port number from 1 to 65535, not ${value}`);
  return port;
}

/** What wrangler's dev server is started with: `extra` is the command line, `env` the environment. */
export function workerOptions(extra: string[], env: NodeJS.ProcessEnv = process.env): StartInput {
  const flags = parseWorkerFlags(extra);
  const devVars = join(REPO_ROOT, ".dev.vars");
  // Every Worker setting the environment sets, so `OPENAI_BASE_URL=... pnpm dev` just works; the executor
  // reads the sandbox's network settings from the same environment, the Worker reports them.
  const settings = present(Object.fromEntries(WORKER_SETTING_VARS.map((name) => [name, env[name]])));
  // As the Worker will see them (arguments over the environment over .dev.vars): a malformed one stops here, before anything starts.
  checkWorkerSettings({ ...(existsSync(devVars) ? readDotenv(readFileSync(devVars, "utf8")) : {}), ...settings, ...flags.vars });
  const tokens = devTokens();
  const vars: Record<string, string | undefined> = { ...settings, DUET_API_TOKEN: tokens.DUET_API_TOKEN, SANDBOX_TOKEN: tokens.SANDBOX_TOKEN };
  // Later files win: the developer's own .dev.vars (which an explicit list would otherwise skip), then ours.
  const envFiles = [existsSync(devVars) ? [devVars] : [], writeWorkerEnvFile(vars)].flat();
  const port = flags.port !== undefined ? parsePort(flags.port, "--port") : parsePort(env.DUET_WORKER_PORT ?? "8787", "DUET_WORKER_PORT");
  return {
    config: join(REPO_ROOT, "wrangler.toml"),
    envFiles,
    bindings: workerBindings(flags.vars),
    // Without v2 the dev server's fetch hangs on Node 20 (measured).
    build: { nodejsCompatMode: "v2" },
    dev: {
      server: { hostname: flags.ip ?? "127.0.0.1", port },
      inspector: false,
      persist: flags.persistTo ?? join(DUET_DIR, "state"),
      watch: false,
      logLevel: "log",
    },
  };
}

/** Names that hold a key, a token, a secret or a password: bound as secrets, so wrangler's bindings table prints them hidden. */
const SECRET_VAR = /KEY|TOKEN|SECRET|PASSWORD/;

/** Variables as wrangler bindings: each a string in the Worker's env, the secret ones never shown in wrangler's output. */
export function workerBindings(vars: Record<string, string>): NonNullable<StartInput["bindings"]> {
  return Object.fromEntries(
    Object.entries(vars).map(([name, value]) => [name, { type: SECRET_VAR.test(name) ? ("secret_text" as const) : ("plain_text" as const), value }]),
  );
}

/** The Worker's settings, read as the Worker reads them; a malformed one is the Worker's one line. */
function checkWorkerSettings(vars: Record<string, string>): void {
  try {
    parseEnv(workerSettingsSchema, vars);
  } catch (err) {
    if (err instanceof ConfigError) throw new WorkerConfigError(err.message);
    throw err;
  }
}

/** The variables that are set (an empty one is left out of the Worker's env file, so it sets nothing). */
const present = (vars: Record<string, string | undefined>) => Object.fromEntries(Object.entries(vars).filter((e): e is [string, string] => Boolean(e[1])));

/** `NAME=value` lines of a dotenv file (quotes taken off); enough to check the settings above before wrangler reads the file. */
function readDotenv(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (m) vars[m[1]!] = m[2]!.replace(/^(['"])(.*)\1$/, "$2");
  }
  return vars;
}

/**
 * The Worker's settings as a dotenv file only its owner can read: on wrangler's
 * command line (`--var`) every local user could read the tokens in `ps`. Values are
 * single-quoted (taken literally) with `$` escaped, since wrangler expands `$NAME`.
 */
export function writeWorkerEnvFile(vars: Record<string, string | undefined>, file = join(DUET_DIR, "worker.env")): string {
  const lines = Object.entries(vars).flatMap(([key, value]) => {
    if (!value) return [];
    if (/['\n\r]/.test(value)) throw new WorkerConfigError(`${key} cannot contain a quote (') or a line break`);
    return [`${key}='${value.replace(/\$/g, "\\$")}'`];
  });
  ensureDuetDir(dirname(file));
  // Written anew each start, so the mode is 0600 even where an older file was not.
  rmSync(file, { force: true });
  writeFileSync(file, `${lines.join("\n")}\n`, { mode: 0o600 });
  return file;
}

/**
 * This script in a child process (`pnpm dev` pipes its output and gives it a process
 * group of its own). The command line holds only `extra`; secrets go through the env file.
 */
export function spawnWorker(extra: string[], env: NodeJS.ProcessEnv = process.env, options: SpawnOptions = {}) {
  return spawn(join(REPO_ROOT, "node_modules", ".bin", "tsx"), [join(REPO_ROOT, "scripts", "dev-worker.ts"), ...forwardedArgs(extra)], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "inherit", "inherit"],
    ...options,
    env: { ...env, ...WRANGLER_QUIET_ENV },
  });
}

async function main(): Promise<void> {
  let options: StartInput;
  try {
    options = workerOptions(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof WorkerConfigError)) throw err;
    console.error(`pnpm dev:worker: ${err.message}`);
    process.exit(2);
  }
  // Rooms' histories and settings: for this user only.
  if (options.dev?.persist) ensurePrivateDir(options.dev.persist);
  Object.assign(process.env, WRANGLER_QUIET_ENV);
  let started: Promise<Awaited<ReturnType<typeof unstable_startWorker>>> | undefined;
  // dispose() stops workerd and closes the server, so nothing outlives this process.
  // Registered before starting: a signal during the slow first build must still take workerd down.
  onStopSignals(
    () => {
      void (started ?? Promise.resolve(undefined))
        .then((w) => w?.dispose())
        .then(() => process.exit(0), () => process.exit(1));
    },
    () => process.exit(130), // a later, second Ctrl-C: do not wait
  );
  // Before wrangler opens any server: miniflare's loopback server answers anyone (see own-user-only.ts).
  ownUserOnly();
  // Loaded here, not at the top: `pnpm dev` imports spawnWorker from this file, and
  // loading wrangler there installs its own SIGINT handling, which exits before the stack is stopped.
  const { unstable_startWorker: start } = await import("wrangler");
  started = start(options);
  const worker = await started;
  await worker.ready;
  console.log(`Worker ready on ${(await worker.url).toString().replace(/\/$/, "")}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: unknown) => {
    console.error(`pnpm dev:worker: the Worker could not start: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
