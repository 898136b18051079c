import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BUILT_ENV, BUILT_NODE_FLAGS } from "../../scripts/build/runtime.ts";
import { rssMiB } from "../proc.ts";

/**
 * A bot running in its own Node process, so RSS and CPU figures are the bot's
 * alone and its event loop is not shared with the fakes that drive it: from
 * source with tsx as a loader (as `pnpm dev:*` runs it), or built (as
 * `pnpm start:*` and the container image run it).
 */

const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface ChildStats {
  heapAfterGcBytes: number;
  /** Memory outside the JS heap that V8 tracks (Buffers, ArrayBuffers). */
  externalBytes: number;
  workerRequests: number;
  workerConnections: number;
}

export interface BotProcess {
  pid: number;
  /** The HTTP port the bot listens on (Slack HTTP mode), else null. */
  port: number | null;
  /** VmRSS in MiB, read from /proc (and VmHWM, the peak, with `peak`). */
  rss(peak?: boolean): number;
  stats(): Promise<ChildStats>;
  /** Resolves once the bot's Worker has answered `n` of its delivery confirms (a Discord bot; see countConfirms). */
  confirmed(n: number): Promise<void>;
  stop(): Promise<void>;
}

export async function spawnBot(script: "slack-bot.ts" | "discord-bot.ts", env: Record<string, string>): Promise<BotProcess> {
  const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", fileURLToPath(new URL(script, import.meta.url))], {
    cwd: REPO_ROOT,
    // Only what the bot needs: a developer's own SLACK_* or DISCORD_* must not leak in.
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...env },
    stdio: ["ignore", "ignore", "pipe", "ipc"],
  });
  let stderr = "";
  child.stderr?.on("data", (d) => {
    stderr = (stderr + String(d)).slice(-4000);
  });
  const ready = await new Promise<{ port: number | null }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start within 60 s: ${stderr}`)), 60_000);
    child.once("exit", (code) => reject(new Error(`${script} exited (${code}) before it was ready: ${stderr}`)));
    child.on("message", (m: { type?: string; port?: number | null }) => {
      if (m?.type !== "ready") return;
      clearTimeout(timer);
      resolve({ port: m.port ?? null });
    });
  });
  return handle(child, ready.port, "ipc");
}

function handle(child: ChildProcess, port: number | null, stopBy: "ipc" | "SIGTERM"): BotProcess {
  const pid = child.pid!;
  return {
    pid,
    port,
    rss: (peak = false) => rssMiB(pid, peak),
    stats: () => request<ChildStats>(child, "stats"),
    confirmed: (n) => request<unknown>(child, "confirmed", { n }).then(() => undefined),
    stop: () => stopChild(child, stopBy),
  };
}

function request<T>(child: ChildProcess, type: string, args: Record<string, unknown> = {}): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { type?: string }) => {
      if (m?.type !== type) return;
      child.off("message", on);
      resolve(m as T);
    };
    child.on("message", on);
    child.send({ type, ...args });
  });
}

/** What a started built bot prints: the HTTP port (Slack HTTP mode), or that it is connected. */
const READY_LINE = /listens for Slack on port (\d+)|connected to Slack over Socket Mode|connected as \S+ in \d+ server/;

/**
 * `duet-bot.js <command>` from a `pnpm build` output folder, with the production
 * flags (or `nodeFlags` instead, to weigh other ones), plus `probe.js`
 * (bench/bots/probe.ts, built beside it) answering "stats".
 */
export async function spawnBuiltBot(dir: string, command: "slack" | "discord", env: Record<string, string>, nodeFlags: readonly string[] = BUILT_NODE_FLAGS): Promise<BotProcess> {
  const child = spawn(process.execPath, ["--expose-gc", ...nodeFlags, "--import", join(dir, "probe.js"), join(dir, "duet-bot.js"), command], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...BUILT_ENV, ...env },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let output = "";
  const keep = (d: unknown) => {
    output = (output + String(d)).slice(-4000);
  };
  child.stderr?.on("data", keep);
  const ready = await new Promise<{ port: number | null }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the built ${command} bot did not start within 60 s: ${output}`)), 60_000);
    child.once("exit", (code) => reject(new Error(`the built ${command} bot exited (${code}) before it was ready: ${output}`)));
    child.stdout?.on("data", (d) => {
      keep(d);
      const m = READY_LINE.exec(output);
      if (!m) return;
      clearTimeout(timer);
      resolve({ port: m[1] ? Number(m[1]) : null });
    });
  });
  return handle(child, ready.port, "SIGTERM");
}

export async function stopChild(child: ChildProcess, how: "ipc" | "SIGTERM"): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  if (how === "ipc") child.send({ type: "stop" });
  else child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}
