import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startStack, type Stack } from "../test/helpers/stack.ts";
import { stopChild } from "./bots/process.ts";

/**
 * The bubblewrap executor in its own Node process, started from source as
 * `pnpm dev:sandbox` starts it (the environment is its whole configuration), and
 * the real Worker wired to it. Then a client in the bench's process and a
 * request through the Worker or a bot reach the same separate executor, as in
 * `pnpm dev` (the executor in the dev script's process) and production (its own
 * container): a figure for "executor direct" no longer shares an event loop
 * with the bench's own client, fakes and timers.
 */

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));
const READY_LINE = /executor listening on (http:\/\/\S+) /;

export interface ExecutorProcess {
  url: string;
  token: string;
  pid: number;
  stop(): Promise<void>;
}

/** `sandbox/src/main.ts` on a free port with a fresh root and token; `env` adds settings (DUET_FILE_MAX_BYTES). */
export async function spawnExecutor(env: Record<string, string> = {}): Promise<ExecutorProcess> {
  const root = mkdtempSync(join(tmpdir(), "duet-bench-executor-"));
  const token = randomBytes(16).toString("hex");
  const child = spawn(process.execPath, ["--import", "tsx", join(REPO_ROOT, "sandbox/src/main.ts")], {
    cwd: REPO_ROOT,
    // Only what the executor needs: a developer's own SANDBOX_* must not leak in.
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", SANDBOX_PORT: "0", SANDBOX_ROOT: root, SANDBOX_TOKEN: token, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (d: unknown) => {
    output = (output + String(d)).slice(-4000);
  };
  child.stderr?.on("data", keep);
  const stop = async () => {
    await stopChild(child, "SIGTERM");
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the executor did not start within 60 s: ${output}`)), 60_000);
      child.once("exit", (code) => reject(new Error(`the executor exited (${code}) before it was ready: ${output}`)));
      child.stdout?.on("data", (d) => {
        keep(d);
        const m = READY_LINE.exec(output);
        if (!m) return;
        clearTimeout(timer);
        resolve(m[1]);
      });
    });
    return { url, token, pid: child.pid!, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The real Worker in workerd wired to an executor in its own process (see spawnExecutor). */
export async function startSeparateExecutorStack(env: Record<string, string> = {}): Promise<{ stack: Stack; executor: ExecutorProcess; stop(): Promise<void> }> {
  const executor = await spawnExecutor(env);
  const stack = await startStack({ executor: "real", vars: { SANDBOX_URL: executor.url, SANDBOX_TOKEN: executor.token } }).catch(async (err) => {
    await executor.stop();
    throw err;
  });
  return {
    stack,
    executor,
    async stop() {
      await stack.stop();
      await executor.stop();
    },
  };
}
