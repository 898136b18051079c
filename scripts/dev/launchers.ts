import { readFileSync } from "node:fs";

/**
 * The processes that launched `pnpm dev` (npm or pnpm, the `sh -c` of the script, tsx)
 * and whatever started them. A service manager or a script that stops the top one,
 * or that dies itself, signals nothing further down: npm forwards no signal once its
 * own parent is gone, and the shell of a script dies without passing SIGTERM on. So
 * `pnpm dev` watches its launchers: when one of them exits, or the topmost is
 * orphaned (its parent died), it stops everything it started.
 */

interface Stat {
  ppid: number;
  pgid: number;
}

/** A process's parent and group, from /proc; null once it is gone (or a zombie). */
export function readStat(pid: number): (Stat & { state: string }) | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null; // exited
  }
  // Fields after the command name, which is in parentheses and may contain spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const state = fields[0];
  if (state === "Z" || state === "X") return null;
  return { state, ppid: Number(fields[1]), pgid: Number(fields[2]) };
}

/** The launchers: this process's ancestors in its own process group (what `npm run dev` started as one job), each with its parent then. */
export function launchers(pid = process.pid): { pid: number; ppid: number }[] {
  const self = readStat(pid);
  if (!self) return [];
  const chain: { pid: number; ppid: number }[] = [];
  for (let at = self.ppid; at > 1; ) {
    const stat = readStat(at);
    if (!stat || stat.pgid !== self.pgid) break;
    chain.push({ pid: at, ppid: stat.ppid });
    at = stat.ppid;
  }
  return chain;
}

/** Which launcher is gone or orphaned, if one is. */
export function launcherGone(chain: readonly { pid: number; ppid: number }[]): string | null {
  for (const { pid, ppid } of chain) {
    const now = readStat(pid);
    if (!now) return `the process that started pnpm dev (pid ${pid}) exited`;
    if (now.ppid !== ppid) return `the process that started pnpm dev (pid ${pid}) lost its parent (pid ${ppid})`;
  }
  return null;
}

/** How often to look: a stop within a second or two is what a service manager's timeout allows for. */
const WATCH_MS = 500;

/** Calls `onGone` once a launcher is gone; the returned function stops watching. */
export function watchLaunchers(onGone: (why: string) => void): () => void {
  const chain = launchers();
  const timer = setInterval(() => {
    const why = launcherGone(chain);
    if (why) {
      clearInterval(timer);
      onGone(why);
    }
  }, WATCH_MS);
  timer.unref();
  return () => clearInterval(timer);
}
