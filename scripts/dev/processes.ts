import type { ChildProcess } from "node:child_process";
import { readdirSync } from "node:fs";
import { createInterface } from "node:readline";
import { readStat } from "./launchers.ts";

/**
 * The children `pnpm dev` runs (wrangler, the bots), each in its own process group
 * so that stopping one reaches everything it spawned: wrangler starts workerd and
 * esbuild, which would otherwise outlive it.
 */

export interface Supervised {
  name: string;
  child: ChildProcess;
  pid: number;
  /** Settles when the child itself exits (its group may still have members). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Prefixes each output line with `[name] `, unless the child already does; lines `drop` picks are not written. */
export function supervise(name: string, child: ChildProcess, write: (line: string) => void, drop: (line: string) => boolean = () => false): Supervised {
  if (child.pid === undefined) throw new Error(`${name} could not be started`);
  const prefix = `[${name}]`;
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream }).on("line", (line) => {
      if (line.trim() === "" || drop(line)) return;
      write(line.startsWith(prefix) ? line : `${prefix} ${line}`);
    });
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  return { name, child, pid: child.pid, exited };
}

/**
 * Processes in group `pgid` that are still running. Read from /proc rather than
 * probed with kill(-pgid, 0): an orphaned zombie keeps the group "alive" for kill()
 * when nothing reaps it (a container's pid 1 often does not), yet it runs nothing.
 */
export function liveGroupMembers(pgid: number): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry) && readStat(Number(entry))?.pgid === pgid)
    .map(Number);
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** How often to look whether a group is empty: processes we did not fork send no exit event. */
const GROUP_POLL_MS = 100;

async function groupGone(pgid: number, deadline: number): Promise<boolean> {
  while (liveGroupMembers(pgid).length > 0) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, GROUP_POLL_MS));
  }
  return true;
}

/**
 * Asks the whole group to stop with `signal`, gives it `graceMs` (a bot finishes the
 * answers in flight, workerd closes its sockets), then SIGKILLs whatever is left.
 * Resolves once the child has exited and nothing in its group runs any more.
 */
export async function stopGroup(s: Supervised, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  signalGroup(s.pid, signal);
  const deadline = Date.now() + graceMs;
  const exitedInTime = await Promise.race([s.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), graceMs).unref())]);
  if (!exitedInTime || !(await groupGone(s.pid, deadline))) {
    signalGroup(s.pid, "SIGKILL");
    await s.exited;
    await groupGone(s.pid, Date.now() + graceMs);
  }
}
