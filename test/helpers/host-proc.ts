import { readdirSync, readFileSync } from "node:fs";
import { expect } from "vitest";

/** One host process as the host's own /proc shows it (the tests run as root): its command line and environment, NULs as newlines. */
interface HostProc {
  cmdline: string;
  environ: string;
}

function hostProcs(): HostProc[] {
  const procs: HostProc[] = [];
  for (const pid of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      const read = (file: string) => readFileSync(`/proc/${pid}/${file}`, "latin1").replace(/\0/g, "\n");
      procs.push({ cmdline: read("cmdline"), environ: read("environ") });
    } catch {
      // Gone, or a kernel thread.
    }
  }
  return procs;
}

/**
 * The command lines of the host's processes that hold a token now (in their
 * environment or command line; `leaks` names the forms it finds in a text),
 * arguments one a line as a probe's `tr '\0' '\n'` prints them: a probe that
 * could see one of these processes would print its command line.
 */
function tokenHolders(leaks: (text: string) => string[]): string[] {
  return hostProcs()
    .filter((p) => leaks(p.environ + p.cmdline).length > 0)
    .map((p) => p.cmdline.replace(/\n$/, ""))
    .filter(Boolean);
}

/** Every host process's command line, which any local user may read (unlike its environment). */
function hostCmdlines(): string {
  return hostProcs()
    .map((p) => p.cmdline)
    .join("\n");
}

/**
 * Runs `probe` in the sandbox while host processes hold the token (the
 * caller's barrier: Duet's git held mid-transfer), and checks what it could
 * have found: the token is in those processes' environment only (a command
 * line is readable by every local user), they lived through the probe, and
 * the probe saw none of them, its /proc showing its own processes only. A
 * token the probe cannot read is not enough: a sandbox that sees the host's
 * processes is refused the token's environment only by its uid.
 */
export async function probeBesideHolders<R extends { stdout: string }>(leaks: (text: string) => string[], probe: () => Promise<R>): Promise<R> {
  const holders = tokenHolders(leaks);
  expect(holders.length).toBeGreaterThan(0);
  expect(leaks(hostCmdlines())).toEqual([]);
  const result = await probe();
  expect(tokenHolders(leaks)).toEqual(expect.arrayContaining(holders));
  expect(holders.filter((cmdline) => result.stdout.includes(cmdline))).toEqual([]);
  return result;
}

/** A model's probe: the environment, the checkout's git config, and every process's environment and command line it can see. */
export const PROBE = `env; cat repo/.git/config 2>/dev/null; for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do tr '\\0' '\\n' < "$f" 2>/dev/null; echo; done; grep -rIl x-access-token . 2>/dev/null; ls /proc | grep -c '^[0-9]'`;

/** A command that leaves a watcher behind, reading every process's environment and command line into `.watch` in the workspace. */
export const WATCHER = `(while :; do for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do tr '\\0' '\\n' < "$f"; done >> .watch 2>/dev/null; sleep 0.05; done) >/dev/null 2>&1 & echo started`;
