import { chmodSync, chownSync, lstatSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GENERATED_RESOLV_CONF, SANDBOX_GID, SANDBOX_UID } from "./bwrap.ts";
import { SANDBOX_RESOLV_CONF } from "./netns.ts";

/**
 * Workspace directories on the host, one per session (a room's sandbox):
 *
 *   <root>/sessions/<sessionId>/   the room's files, mounted at /workspace
 *   <root>/etc/                    generated passwd, group, hosts, hostname, resolv.conf
 *   <root>/probe/                  scratch workspace for the start-up check
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

  /** `owner`: host uid/gid the sandbox runs as when the executor is root; null to keep our own. */
  constructor(
    readonly root: string,
    private readonly owner: Owner | null,
  ) {
    this.sessionsDir = join(root, "sessions");
    this.etcDir = join(root, "etc");
    this.probeDir = join(root, "probe");
  }

  /** Creates the folders and the generated /etc files. Safe to call on an existing root. */
  init(): void {
    for (const dir of [this.root, this.sessionsDir, this.etcDir]) {
      mkdirSync(dir, { recursive: true });
      // mkdtemp-made roots are 0700, which bwrap (running as the owner uid) cannot enter.
      if (this.owner) chmodSync(dir, 0o755);
    }
    const files: Record<string, string> = {
      passwd: `root:x:0:0:root:/root:/usr/sbin/nologin\nsandbox:x:${SANDBOX_UID}:${SANDBOX_GID}:Duet sandbox:/workspace:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
      group: `root:x:0:\nsandbox:x:${SANDBOX_GID}:\nnogroup:x:65534:\n`,
      hosts: "127.0.0.1 localhost sandbox\n::1 localhost ip6-localhost ip6-loopback\n",
      hostname: "sandbox\n",
      [GENERATED_RESOLV_CONF]: SANDBOX_RESOLV_CONF,
    };
    for (const [name, text] of Object.entries(files)) writeFileSync(join(this.etcDir, name), text, { mode: 0o644 });
    this.ensureDir(this.probeDir);
  }

  pathOf(sessionId: string): string {
    // Checked here too (not only in the HTTP layer): this is the line between an id and a host path.
    if (!isValidSessionId(sessionId)) throw new Error(`invalid session id: ${JSON.stringify(sessionId)}`);
    return join(this.sessionsDir, sessionId);
  }

  /** The session's workspace, created on first use. */
  ensure(sessionId: string): string {
    const dir = this.pathOf(sessionId);
    this.ensureDir(dir);
    return dir;
  }

  /** Deletes the session's workspace; a missing one is not an error. */
  remove(sessionId: string): void {
    const dir = this.pathOf(sessionId);
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch (err) {
      // A command may have left read-only folders (chmod -w); without root we
      // cannot delete inside them until they are writable again.
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "EACCES" && code !== "EPERM") throw err;
      makeWritable(dir);
      rmSync(dir, { recursive: true, force: true });
    }
  }

  private ensureDir(dir: string): void {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    if (this.owner) chownSync(dir, this.owner.uid, this.owner.gid);
  }
}

function makeWritable(dir: string): void {
  let st;
  try {
    st = lstatSync(dir);
  } catch {
    return;
  }
  // lstat: never follow a symlink a command planted, it may point at a host path.
  if (!st.isDirectory()) return;
  chmodSync(dir, 0o700);
  for (const name of readdirSync(dir)) makeWritable(join(dir, name));
}
