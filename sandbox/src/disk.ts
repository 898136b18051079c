import { execFile } from "node:child_process";
import { chmodSync, closeSync, existsSync, ftruncateSync, mkdirSync, openSync, rmdirSync, statfsSync, statSync, unlinkSync } from "node:fs";
import { dirname } from "node:path";
import { promisify } from "node:util";
import { findProgram } from "./launch.ts";

/**
 * A filesystem of its own per room (SANDBOX_WORKSPACE_MAX_BYTES): a sparse image
 * file formatted ext4 and loop-mounted on the room's workspace folder. What a
 * command writes is bounded by that filesystem, so one room filling its disk never
 * fills the host's (where the Worker's state lives) or another room's. The image
 * takes host disk only for what was written.
 *
 * Reset needs no walk of the room's tree (however deep a command made it): unmount,
 * delete the image. Mounting needs root; elsewhere start-up says the quota is not
 * enforced and workspaces are plain folders.
 */

const run = promisify(execFile);
/** No blocks kept back for root (ext4 reserves 5%): the room gets its whole quota. No journal: a room's disk needs no crash recovery. */
const MKFS_OPTIONS = ["-q", "-F", "-m", "0", "-O", "^has_journal"];
/** A room's filesystem may not hold device nodes or set-uid programs that work. */
const MOUNT_OPTIONS = "loop,nosuid,nodev";
/** Free space under which a room's disk counts as full (see isFull). */
export const FULL_BELOW_BYTES = 1024 * 1024;

export interface DiskTools {
  mkfs: string;
  mount: string;
  umount: string;
}

/** The programs a per-room filesystem needs, or why there is none (for the start-up line). */
export function findDiskTools(isRoot: boolean): DiskTools | string {
  if (!isRoot) return "the executor does not run as root (loop mounts need it)";
  const tools = { mkfs: findProgram("mkfs.ext4"), mount: findProgram("mount"), umount: findProgram("umount") };
  const missing = Object.entries(tools).filter(([, p]) => !p).map(([n]) => n);
  if (missing.length) return `${missing.join(", ")} not found (Debian packages e2fsprogs, mount)`;
  return tools as DiskTools;
}

export function isMountPoint(dir: string): boolean {
  try {
    return statSync(dir).dev !== statSync(dirname(dir)).dev;
  } catch {
    return false;
  }
}

export class RoomDisks {
  constructor(
    private readonly tools: DiskTools,
    readonly maxBytes: number,
    private readonly owner: { uid: number; gid: number },
  ) {}

  /** Mounts the room's filesystem on `dir`, making the image first if there is none. */
  async ensure(dir: string, image: string): Promise<void> {
    if (isMountPoint(dir)) return;
    mkdirSync(dir, { recursive: true });
    if (!existsSync(image)) {
      const partial = `${image}.new`;
      const fd = openSync(partial, "w", 0o600);
      try {
        ftruncateSync(fd, this.maxBytes); // sparse: no host disk used yet
      } finally {
        closeSync(fd);
      }
      await run(this.tools.mkfs, [...MKFS_OPTIONS, "-E", `root_owner=${this.owner.uid}:${this.owner.gid}`, partial]);
      await run("mv", ["-f", partial, image]);
    }
    await run(this.tools.mount, ["-o", MOUNT_OPTIONS, image, dir]);
    // mkfs makes its root 0755: the room's files are for its owner (the sandbox's uid) only.
    chmodSync(dir, 0o700);
    // mkfs's lost+found would show in every room's `ls -A`.
    try {
      rmdirSync(`${dir}/lost+found`);
    } catch {
      // Already gone.
    }
  }

  /** Unmounts `dir` (lazily if something still holds it); the image stays. */
  async unmount(dir: string): Promise<void> {
    if (!isMountPoint(dir)) return;
    try {
      await run(this.tools.umount, [dir]);
    } catch {
      await run(this.tools.umount, ["-l", dir]);
    }
  }

  /** Unmounts and deletes the room's filesystem: its files go with the image, whatever their shape. */
  async destroy(dir: string, image: string): Promise<void> {
    await this.unmount(dir);
    for (const f of [image, `${image}.new`]) {
      try {
        unlinkSync(f);
      } catch {
        // Never made.
      }
    }
  }

  /**
   * True when the room's filesystem is (all but) full, for a note a person can act on.
   * "All but": ext4 keeps a few blocks a file cannot take, so a failed write may leave
   * some free; under 1 MiB (or 1%) left counts.
   */
  isFull(dir: string): boolean {
    try {
      if (!isMountPoint(dir)) return false;
      const { bavail, bsize } = statfsSync(dir);
      return bavail * bsize < Math.max(FULL_BELOW_BYTES, this.maxBytes / 100);
    } catch {
      return false;
    }
  }
}
