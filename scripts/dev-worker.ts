import { spawn, type SpawnOptions } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DUET_DIR, REPO_ROOT, devTokens, forwardedArgs } from "./dev-env.ts";

/**
 * `pnpm dev:worker`: the Worker under `wrangler dev` on 127.0.0.1:8787 with its
 * Durable Object state persisted under .duet/. Extra arguments go to wrangler,
 * e.g. `pnpm dev:worker --port 9000`; an `--ip`, `--port` or `--persist-to` among
 * them replaces this script's own value (wrangler refuses a flag given twice).
 * Tokens and model settings reach wrangler through a 0600 file, never its command line.
 */

/** Whether `args` sets `flag`, as `--flag value` or `--flag=value`. */
const sets = (args: string[], flag: string) => args.some((a) => a === flag || a.startsWith(`${flag}=`));

export function workerArgs(extra: string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const forwarded = forwardedArgs(extra);
  const tokens = devTokens();
  const vars: Record<string, string | undefined> = {
    DUET_API_TOKEN: tokens.DUET_API_TOKEN,
    SANDBOX_TOKEN: tokens.SANDBOX_TOKEN,
    // Model settings from the environment, so `OPENAI_BASE_URL=... pnpm dev` just works.
    MODEL_PROVIDER: env.MODEL_PROVIDER,
    MODEL: env.MODEL,
    OPENAI_BASE_URL: env.OPENAI_BASE_URL,
    OPENAI_API_KEY: env.OPENAI_API_KEY,
    SANDBOX_URL: env.SANDBOX_URL,
    // One setting for both: the executor reads these from the same environment, the Worker reports them.
    SANDBOX_NETWORK: env.SANDBOX_NETWORK,
    SANDBOX_ALLOWED_HOSTS: env.SANDBOX_ALLOWED_HOSTS,
    SANDBOX_DENIED_HOSTS: env.SANDBOX_DENIED_HOSTS,
  };
  const envFiles = [existsSync(join(REPO_ROOT, ".dev.vars")) ? [join(REPO_ROOT, ".dev.vars")] : [], writeWorkerEnvFile(vars)].flat();
  const defaults: [string, string][] = [
    ["--ip", "127.0.0.1"],
    ["--port", env.DUET_WORKER_PORT ?? "8787"],
    ["--persist-to", join(DUET_DIR, "state")],
  ];
  return [
    "dev",
    "--config", join(REPO_ROOT, "wrangler.toml"),
    ...defaults.flatMap(([flag, value]) => (sets(forwarded, flag) ? [] : [flag, value])),
    "--show-interactive-dev-session=false",
    // Later files win: the developer's own .dev.vars (which --env-file would otherwise skip), then ours.
    ...envFiles.flatMap((f) => ["--env-file", f]),
    ...forwarded,
  ];
}

/**
 * The Worker's settings as a dotenv file only its owner can read: on wrangler's
 * command line (`--var`) every local user could read the tokens in `ps`. Values are
 * single-quoted (taken literally) with `$` escaped, since wrangler expands `$NAME`.
 */
export function writeWorkerEnvFile(vars: Record<string, string | undefined>, file = join(DUET_DIR, "worker.env")): string {
  const lines = Object.entries(vars).flatMap(([key, value]) => {
    if (!value) return [];
    if (/['\n\r]/.test(value)) throw new Error(`${key} cannot contain a quote (') or a line break`);
    return [`${key}='${value.replace(/\$/g, "\\$")}'`];
  });
  mkdirSync(DUET_DIR, { recursive: true });
  // Written anew each start, so the mode is 0600 even where an older file was not.
  rmSync(file, { force: true });
  writeFileSync(file, `${lines.join("\n")}\n`, { mode: 0o600 });
  return file;
}

/** `options` lets `pnpm dev` pipe the output and give wrangler its own process group. */
export function spawnWorker(extra: string[], env: NodeJS.ProcessEnv = process.env, options: SpawnOptions = {}) {
  return spawn(join(REPO_ROOT, "node_modules", ".bin", "wrangler"), workerArgs(extra, env), {
    cwd: REPO_ROOT,
    stdio: ["ignore", "inherit", "inherit"],
    ...options,
    env: { ...env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const child = spawnWorker(process.argv.slice(2));
  const stop = () => child.kill("SIGINT");
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  child.on("exit", (code) => process.exit(code ?? 0));
}
