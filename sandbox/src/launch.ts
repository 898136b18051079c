/**
 * How a sandboxed command starts when the executor is root: a small shell joins
 * the room's cgroups (so everything the command starts is counted there), with
 * SANDBOX_NETWORK=all waits in its fresh network namespace until slirp4netns and
 * the routes are in place (netns.ts), then drops to the sandbox's host uid with
 * setpriv and execs bubblewrap. Joining before bwrap starts leaves no moment in
 * which a process of the room runs outside its groups.
 */

import { existsSync } from "node:fs";

/** Where a system program is, in the usual bin folders; undefined when absent. */
export const findProgram = (name: string) => ["/usr/bin/", "/usr/sbin/", "/bin/", "/sbin/"].map((d) => d + name).find((p) => existsSync(p));

export interface Launch {
  /** Host uid/gid bubblewrap runs as. */
  uid: number;
  setpriv: string;
  /** The room's `cgroup.procs` files; empty where cgroups are not enforced. */
  cgroupProcs: string[];
  /** `unshare` when the command gets a private network namespace. */
  unshare?: string;
  /** bwrap's argv. */
  inner: string[];
}

/**
 * Shell lines that move the shell itself into each of `cgroupProcs` (what it execs
 * stays there), or exit 125 when one cannot be joined. The paths are ours (cgroup
 * folders named by session id: [A-Za-z0-9._-]), so quoting them is enough.
 */
export const joinGroupsScript = (cgroupProcs: string[]) => cgroupProcs.map((f) => `echo $$ > '${f}' || exit 125; `).join("");

export function launchArgv({ uid, setpriv, cgroupProcs, unshare, inner }: Launch): string[] {
  const join = joinGroupsScript(cgroupProcs);
  // fd 3 says "the namespace exists"; stdin's line says "its network is ready". fd 3
  // is closed first so nothing of ours is inherited by the sandbox.
  const wait = unshare ? 'echo >&3 && exec 3>&- && read -r _ && exec "$@" </dev/null' : 'exec "$@"';
  const shell = ["/bin/sh", "-c", join + wait, "sh", setpriv, `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "--", ...inner];
  return unshare ? [unshare, "--net", "--", ...shell] : shell;
}
