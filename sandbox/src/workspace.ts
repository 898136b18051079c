import { execFile } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { GENERATED_RESOLV_CONF, SANDBOX_GID, SANDBOX_UID } from "./bwrap.ts";
import type { RoomDisks } from "./disk.ts";
import { SANDBOX_RESOLV_CONF } from "./netns.ts";

const run = promisify(execFile);

/**
 * Workspace directories on the host, one per session (a room's sandbox):
 *
 *   <root>/sessions/<sessionId>/   the room's files, mounted at /workspace
 *   <root>/etc/                    generated passwd, group, hosts, hostname, resolv.conf
 *   <root>/probe/                  scratch workspace for the start-up check
 *   <root>/disks/<sessionId>.ext4  the room's own filesystem, mounted on its workspace (disk.ts), where the host allows
 *
 * Session ids are kept in their own folder so no id (".", "etc", ...) can name
 * anything but a workspace.
 */

/** Sessions are named `sandbox-<roomId>`; room ids are at most 200 of the same characters. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9._-]{1,220}$/;

export function isValidSessionId(id: string): boolean {
  // Dots alone ("." or "..") would name the sessions folder or its parent.
  return SESSION_ID_PATTERN.test(id) && !/^\.+$/.test(id);
}

export interface Owner {
  uid: number;
  gid: number;
}

export class Workspaces {
  readonly sessionsDir: string;
  readonly etcDir: string;
  readonly probeDir: string;
  readonly disksDir: string;
  private readonly mounting = new Map<string, Promise<void>>();
  /** Removals in progress: a second DELETE of the same room waits for the first instead of racing its unmount. */
  private readonly removing = new Map<string, Promise<void>>();

  /**
   * `owner`: host uid/gid the sandbox runs as when the executor is root; null to keep our own.
   * `disks`: a filesystem per room (the disk quota); null where the host allows none.
   */
  constructor(
    readonly root: string,
    private readonly owner: Owner | null,
    public disks: RoomDisks | null = null,
  ) {
    this.sessionsDir = join(root, "sessions");
    this.etcDir = join(root, "etc");
    this.probeDir = join(root, "probe");
    this.disksDir = join(root, "disks");
  }

  /** Creates the folders and the generated /etc files. Safe to call on an existing root. */
  init(): void {
    for (const dir of [this.root, this.sessionsDir, this.etcDir]) {
      mkdirSync(dir, { recursive: true });
      chmodSync(dir, this.passage);
    }
    const files: Record<string, string> = {
      passwd: `root:x:0:0:root:/root:/usr/sbin/nologin\nsandbox:x:${SANDBOX_UID}:${SANDBOX_GID}:Duet sandbox:/workspace:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
      group: `root:x:0:\nsandbox:x:${SANDBOX_GID}:\nnogroup:x:65534:\n`,
      hosts: "127.0.0.1 localhost sandbox\n::1 localhost ip6-localhost ip6-loopback\n",
      hostname: "sandbox\n",
      [GENERATED_RESOLV_CONF]: SANDBOX_RESOLV_CONF,
    };
    // Read by bubblewrap as the sandbox's uid; nothing in them is secret.
    for (const [name, text] of Object.entries(files)) writeFileSync(join(this.etcDir, name), text, { mode: 0o644 });
    this.ensureDir(this.probeDir);
    if (this.disks) {
      mkdirSync(this.disksDir, { recursive: true });
      chmodSync(this.disksDir, 0o700); // images hold rooms' files: not for other users
    }
  }

  /**
   * The mode of the folders on the way to a workspace: 0700 when bubblewrap runs as
   * us; 0711 when it runs as the owner uid, which must pass through them (enter, not
   * list: another local user can neither list the rooms nor enter a workspace, each 0700).
   */
  private get passage(): number {
    return this.owner ? 0o711 : 0o700;
  }

  pathOf(sessionId: string): string {
    // Checked here too (not only in the HTTP layer): this is the line between an id and a host path.
    if (!isValidSessionId(sessionId)) throw new Error(`invalid session id: ${JSON.stringify(sessionId)}`);
    return join(this.sessionsDir, sessionId);
  }

  private imageOf(sessionId: string): string {
    return join(this.disksDir, `${sessionId}.ext4`);
  }

  /** The session's workspace, created (with its own filesystem, where there are disks) on first use. */
  async ensure(sessionId: string): Promise<string> {
    const dir = this.pathOf(sessionId);
    this.ensureDir(dir);
    if (!this.disks) return dir;
    // One mount per room even when its first commands arrive together.
    let mounting = this.mounting.get(sessionId);
    if (!mounting) {
      mounting = this.disks.ensure(dir, this.imageOf(sessionId)).finally(() => this.mounting.delete(sessionId));
      this.mounting.set(sessionId, mounting);
    }
    await mounting;
    return dir;
  }

  /** The probe's workspace on a filesystem of its own too, so start-up proves loop mounts work here. */
  async ensureProbe(): Promise<void> {
    if (this.disks) await this.disks.ensure(this.probeDir, join(this.disksDir, "probe.ext4"));
  }

  /** Whether the session's own filesystem is full (false without disks). */
  isFull(sessionId: string): boolean {
    return this.disks?.isFull(this.pathOf(sessionId)) ?? false;
  }

  /**
   * Deletes the session's workspace; a missing one is not an error. With disks the
   * image goes whole. The folder goes by `rm -rf`, which walks by directory handle:
   * Node's rmSync builds full paths and fails (ENAMETOOLONG) on a tree a command
   * made 600 levels deep.
   */
  remove(sessionId: string): Promise<void> {
    const running = this.removing.get(sessionId);
    if (running) return running;
    const removal = this.removeNow(sessionId).finally(() => this.removing.delete(sessionId));
    this.removing.set(sessionId, removal);
    return removal;
  }

  private async removeNow(sessionId: string): Promise<void> {
    const dir = this.pathOf(sessionId);
    if (this.disks) await this.disks.destroy(dir, this.imageOf(sessionId));
    if (!existsSync(dir)) return;
    try {
      await run("rm", ["-rf", "--one-file-system", "--", dir]);
    } catch {
      // A command may have left read-only folders (chmod -w); without root we
      // cannot delete inside them until they are writable again. -P: never follow
      // a symlink a command planted, it may point at a host path.
      await run("chmod", ["-R", "-P", "u+rwx", "--", dir]).catch(() => {});
      await run("rm", ["-rf", "--one-file-system", "--", dir]);
    }
  }

  /**
   * Unmounts every room's filesystem (the executor is closing); images stay for the next start. A folder that
   * stays mounted (both the unmount and the lazy one refused) is said on stderr with why, and the others go on.
   */
  async unmountAll(): Promise<void> {
    if (!this.disks) return;
    const dirs = [this.probeDir, ...(existsSync(this.sessionsDir) ? readdirSync(this.sessionsDir).map((n) => join(this.sessionsDir, n)) : [])];
    for (const dir of dirs) {
      await this.disks.unmount(dir).catch((err: Error & { stderr?: string }) => {
        const why = (err.stderr || err.message).trim().split("\n").pop();
        console.error(`[sandbox] could not unmount ${dir}: ${why}; it stays mounted until the next start`);
      });
    }
  }

  /**
   * A workspace folder: 0700, owned by the uid the sandbox runs as on the host (the
   * owner, else us), which is the sandbox's own uid 1000 inside, so its commands can
   * write there and no other local user can read it.
   */
  private ensureDir(dir: string): void {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    if (this.owner) chownSync(dir, this.owner.uid, this.owner.gid);
  }
}
