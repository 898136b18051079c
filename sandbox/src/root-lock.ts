import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * One executor per SANDBOX_ROOT. Two executors on one root share the rooms' disks and
 * cgroup (its name comes from the root), and the one that stops first unmounts and
 * removes them under the other. The lock is a file in the root holding the owner's
 * pid; a lock whose pid no longer runs (an executor killed with SIGKILL) is taken over.
 */

const LOCK_FILE = "executor.pid";

/** Roots this process holds: a second executor in one process is refused too, though its pid is alive. */
const held = new Set<string>();

/** Whether `pid` is a running process (EPERM: it runs, as another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The pid a lock file names, or null when it names none (half written, emptied, foreign). */
function ownerOf(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Why `root` cannot be taken: another live executor holds it; null once this process holds it. */
export function lockRoot(root: string): { release(): void } | { refused: string } {
  mkdirSync(root, { recursive: true });
  const file = join(root, LOCK_FILE);
  const refused = (pid: number) => ({
    refused: `another sandbox executor (pid ${pid}) is already using SANDBOX_ROOT ${root}: stop it first, or give this one another SANDBOX_ROOT`,
  });
  if (held.has(root)) return refused(process.pid);
  // Twice at most: the second try follows taking over a stale lock, which another starter may win.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: "wx", mode: 0o644 });
      held.add(root);
      return {
        release: () => {
          if (!held.delete(root)) return;
          if (ownerOf(file) === process.pid) rmSync(file, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const owner = ownerOf(file);
    if (owner !== null && owner !== process.pid && alive(owner)) return refused(owner);
    // Left by an executor that died without closing (or by this pid in an earlier life): stale.
    rmSync(file, { force: true });
  }
  const owner = ownerOf(file);
  return owner === null ? { refused: `SANDBOX_ROOT ${root} is being taken by another sandbox executor starting at the same time` } : refused(owner);
}
