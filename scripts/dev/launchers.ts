import { readFileSync } from "node:fs";

/** Set by npm and pnpm in the environment of the script they run (and inherited below it). */
const SCRIPT_MARK = "npm_lifecycle_event=";

/**
 * The processes that launched `pnpm dev` (npm or pnpm, the `sh -c` of the script, tsx)
 * and whatever started them. A service manager or a script that stops the top one,
 * or that dies itself, signals nothing further down: npm forwards no signal once its
 * own parent is gone, and the shell of a script dies without passing SIGTERM on. So
 * `pnpm dev` watches its launchers: when one of them exits, or the topmost is
 * orphaned (its parent died), it stops everything it started.
 *
 * Started in the background (`--background` or DUET_DEV_DETACHED=1: a script's
 * `nohup npm run dev &`, after which the script exits), the script going away is
 * expected: only the package manager and what it ran are watched, and only for
 * exiting (npm stopped by a SIGTERM of its own), never for losing their parent.
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

/**
 * Whether `pid` runs this same package-manager script (or below it): its environment names
 * the script as ours does. The package manager itself, and whatever started it, name none,
 * or another (a script started from `npx` or another npm script carries that one's).
 */
function inScript(pid: number, mark: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(mark);
  } catch {
    return false;
  }
}

/**
 * The launchers a background start watches: those running the package manager's script,
 * up to and including the package manager (the first without the script's mark). None
 * when `pnpm dev` was not started through a package manager.
 */
export function packageManagerLaunchers(chain: readonly { pid: number; ppid: number }[], script = process.env.npm_lifecycle_event): { pid: number; ppid: number }[] {
  if (!script) return [];
  const mark = SCRIPT_MARK + script;
  const end = chain.findIndex((l) => !inScript(l.pid, mark));
  return end === -1 ? [...chain] : chain.slice(0, end + 1);
}

/** Which launcher is gone or orphaned, if one is; `detached`, only one that exited counts. */
export function launcherGone(chain: readonly { pid: number; ppid: number }[], detached = false): string | null {
  for (const { pid, ppid } of chain) {
    const now = readStat(pid);
    if (!now) return `the process that started pnpm dev (pid ${pid}) exited`;
    if (!detached && now.ppid !== ppid) return `the process that started pnpm dev (pid ${pid}) lost its parent (pid ${ppid})`;
  }
  return null;
}

/** How often to look: a stop within a second or two is what a service manager's timeout allows for. */
const WATCH_MS = 500;

/** Calls `onGone` once a launcher is gone (`detached`: the background start's few, above); the returned function stops watching. */
export function watchLaunchers(onGone: (why: string) => void, detached = false): () => void {
  const chain = detached ? packageManagerLaunchers(launchers()) : launchers();
  const timer = setInterval(() => {
    const why = launcherGone(chain, detached);
    if (why) {
      clearInterval(timer);
      onGone(why);
    }
  }, WATCH_MS);
  timer.unref();
  return () => clearInterval(timer);
}
