import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { expect } from "vitest";
import { bundle } from "../../scripts/build/bundle.ts";
import { BUILT_ENV, BUILT_NODE_FLAGS } from "../../scripts/build/runtime.ts";

/**
 * The bots as the container image runs them: `pnpm build`'s output in a folder
 * of its own (what bots/Dockerfile copies, with no node_modules anywhere above
 * it), started with plain node and the production flags.
 */

export interface Built {
  dir: string;
  remove(): void;
}

export async function buildBots(): Promise<Built> {
  const dir = mkdtempSync(join(tmpdir(), "duet-built-"));
  for (let d = dir; d !== dirname(d); d = dirname(d)) {
    if (existsSync(join(d, "node_modules"))) throw new Error(`${d} holds node_modules: the built bots must run without one`);
  }
  await bundle(dir);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface BotProc {
  child: ChildProcess;
  output(): string;
  waitForOutput(text: string, timeoutMs?: number): Promise<void>;
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

export function runBuilt(built: Built, command: "slack" | "discord" | "discord-sharded" | "discord-register", env: Record<string, string>): BotProc {
  // Only what the bot needs: a developer's own SLACK_* or DISCORD_* must not leak in.
  const child = spawn(process.execPath, [...BUILT_NODE_FLAGS, join(built.dir, "duet-bot.js"), command], {
    cwd: built.dir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...BUILT_ENV, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited,
    async waitForOutput(text, timeoutMs = 30_000) {
      await expect.poll(() => out, { timeout: timeoutMs, interval: 50 }).toContain(text);
    },
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

export async function healthz(port: number): Promise<{ status: number; body: { ok: boolean; reason?: string } }> {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`);
  return { status: res.status, body: (await res.json()) as { ok: boolean; reason?: string } };
}

/** Polls /healthz until it answers `status` (a reconnect or an outage takes a moment to show). */
export async function healthBecomes(port: number, status: number, timeoutMs = 30_000): Promise<{ ok: boolean; reason?: string }> {
  let last: { status: number; body: { ok: boolean; reason?: string } } | undefined;
  await expect
    .poll(
      async () => {
        last = await healthz(port).catch(() => undefined);
        return last?.status;
      },
      { timeout: timeoutMs, interval: 100 },
    )
    .toBe(status);
  return last!.body;
}

/** The port a started bot names in its output (`... port 1234 ...`), for bots started on port 0. */
export async function portFrom(proc: BotProc, before: string): Promise<number> {
  const re = new RegExp(`${before} (\\d+)`);
  await expect.poll(() => re.test(proc.output()), { timeout: 30_000, interval: 50 }).toBe(true);
  return Number(re.exec(proc.output())![1]);
}
