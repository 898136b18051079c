import { spawnSync } from "node:child_process";

/** Whether this process can act as another local user (it is root), for tests of file permissions. */
export const canActAsOtherUser = process.getuid?.() === 0;

/** Runs `argv` on this machine as `nobody`, another local user (needs root: see canActAsOtherUser). */
export function asOtherUser(argv: string[]): { status: number | null; stderr: string } {
  const r = spawnSync("setpriv", ["--reuid", "65534", "--regid", "65534", "--clear-groups", "--", ...argv], { encoding: "utf8" });
  return { status: r.status, stderr: r.stderr };
}
