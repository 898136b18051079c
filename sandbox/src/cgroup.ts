import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * One cgroup per room, so memory (shared memory and tmpfs included), processes and
 * CPU are capped for the room as a whole rather than per process (RLIMIT_DATA does
 * not count shared anonymous memory; RLIMIT_NPROC is per command). Every command of
 * the room joins it before bubblewrap starts (see launch.ts).
 *
 * Works with cgroup v1 (a hierarchy per controller, as on this kind of machine) and
 * v2 (one hierarchy, controllers enabled for our subtree). Needs root; where the host
 * allows none of it, `enforced` stays empty and start-up says so.
 */

export interface RoomLimits {
  memoryBytes: number;
  maxProcs: number;
  /** CPUs' worth of time per period, e.g. 1 = one core. */
  cpus: number;
}

/** CFS period: 100 ms, the kernel's default. */
const CPU_PERIOD_US = 100_000;

type Controller = "memory" | "pids" | "cpu";

interface Hierarchy {
  /** Our folder in this hierarchy (created), under which each room gets one. */
  base: string;
  controllers: Controller[];
  version: 1 | 2;
}

/** Our own cgroup path per v1 controller and for v2 ("" key), from /proc/self/cgroup. */
function ownPaths(): Map<string, string> {
  const paths = new Map<string, string>();
  for (const line of readFileSync("/proc/self/cgroup", "utf8").trim().split("\n")) {
    const [, controllers, path] = line.split(":");
    for (const c of controllers.split(",")) paths.set(c, path);
  }
  return paths;
}

function tryWrite(file: string, value: string): boolean {
  try {
    writeFileSync(file, value);
    return true;
  } catch {
    return false;
  }
}

export class RoomCgroups {
  private readonly hierarchies: Hierarchy[] = [];
  /** Controllers that hold here ("memory", "pids", "cpu"); empty when none. */
  readonly enforced: Controller[] = [];
  /** Why nothing could be enforced, for the start-up line. */
  readonly problem: string | undefined;

  /** `root`: the executor's SANDBOX_ROOT; its hash names our folder, so two executors never share one. */
  constructor(
    root: string,
    private readonly limits: RoomLimits,
    isRoot: boolean,
  ) {
    if (!isRoot) {
      this.problem = "the executor does not run as root";
      return;
    }
    const name = `duet-sandbox-${createHash("sha256").update(root).digest("hex").slice(0, 12)}`;
    const own = ownPaths();
    try {
      if (existsSync("/sys/fs/cgroup/cgroup.controllers")) this.setUpV2(join("/sys/fs/cgroup", own.get("") ?? "/"), name);
      else this.setUpV1(own, name);
    } catch {
      // Left as found: nothing enforced.
    }
    this.enforced = this.hierarchies.flatMap((h) => h.controllers);
    this.problem = this.enforced.length ? undefined : "no cgroup hierarchy here lets us make a group per room";
  }

  private setUpV1(own: Map<string, string>, name: string): void {
    for (const c of ["memory", "pids", "cpu"] as const) {
      const mount = join("/sys/fs/cgroup", c);
      if (!existsSync(join(mount, "cgroup.procs"))) continue;
      const base = join(mount, own.get(c) ?? "/", name);
      try {
        mkdirSync(base, { recursive: true });
      } catch {
        continue;
      }
      this.hierarchies.push({ base, controllers: [c], version: 1 });
    }
  }

  private setUpV2(parent: string, name: string): void {
    const available = readFileSync(join(parent, "cgroup.controllers"), "utf8").trim().split(/\s+/);
    const wanted = (["memory", "pids", "cpu"] as const).filter((c) => available.includes(c));
    // Fails where our own cgroup holds processes (v2's "no internal processes" rule)
    // unless it is the root: then nothing is enforced and start-up says so.
    const enabled = wanted.filter((c) => tryWrite(join(parent, "cgroup.subtree_control"), `+${c}`));
    if (!enabled.length) return;
    const base = join(parent, name);
    mkdirSync(base, { recursive: true });
    const inBase = enabled.filter((c) => tryWrite(join(base, "cgroup.subtree_control"), `+${c}`));
    if (inBase.length) this.hierarchies.push({ base, controllers: inBase, version: 2 });
  }

  /** Creates the room's groups with their limits; returns the `cgroup.procs` files a command joins. */
  ensure(sessionId: string): string[] {
    const files: string[] = [];
    for (const h of this.hierarchies) {
      const dir = join(h.base, sessionId);
      if (!existsSync(dir)) {
        mkdirSync(dir);
        for (const c of h.controllers) this.apply(dir, c, h.version);
      }
      files.push(join(dir, "cgroup.procs"));
    }
    return files;
  }

  private apply(dir: string, c: Controller, version: 1 | 2): void {
    const { memoryBytes, maxProcs, cpus } = this.limits;
    const quota = String(Math.round(cpus * CPU_PERIOD_US));
    if (c === "pids") writeFileSync(join(dir, "pids.max"), String(maxProcs));
    else if (c === "cpu" && version === 1) {
      writeFileSync(join(dir, "cpu.cfs_period_us"), String(CPU_PERIOD_US));
      writeFileSync(join(dir, "cpu.cfs_quota_us"), quota);
    } else if (c === "cpu") writeFileSync(join(dir, "cpu.max"), `${quota} ${CPU_PERIOD_US}`);
    else if (version === 1) {
      writeFileSync(join(dir, "memory.limit_in_bytes"), String(memoryBytes));
      // With swap accounting, memory+swap gets the same cap: swapping out does not get round it.
      tryWrite(join(dir, "memory.memsw.limit_in_bytes"), String(memoryBytes));
    } else {
      writeFileSync(join(dir, "memory.max"), String(memoryBytes));
      tryWrite(join(dir, "memory.swap.max"), "0");
    }
  }

  /** How many times the kernel has killed a process of the room for memory (0 without a memory group). */
  oomKills(sessionId: string): number {
    const h = this.hierarchies.find((x) => x.controllers.includes("memory"));
    if (!h) return 0;
    const file = join(h.base, sessionId, h.version === 1 ? "memory.oom_control" : "memory.events");
    try {
      return Number(/^oom_kill (\d+)$/m.exec(readFileSync(file, "utf8"))?.[1] ?? 0);
    } catch {
      return 0;
    }
  }

  /** Removes the room's groups (its processes are gone by now); best effort. */
  remove(sessionId: string): void {
    for (const h of this.hierarchies) {
      try {
        rmdirSync(join(h.base, sessionId));
      } catch {
        // Already gone, or a process still exiting: an empty group costs nothing and is reused.
      }
    }
  }

  /** Removes every room's groups and our folder (the executor is closing, its commands are gone). */
  close(): void {
    for (const h of this.hierarchies) {
      try {
        for (const name of readdirSync(h.base)) if (statSync(join(h.base, name)).isDirectory()) rmdirSync(join(h.base, name));
        rmdirSync(h.base);
      } catch {
        // A group still busy stays; the next executor on this root reuses it.
      }
    }
  }
}
