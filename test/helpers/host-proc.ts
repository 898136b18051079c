import { readdirSync, readFileSync } from "node:fs";

/** What the host's own /proc shows now (the tests run as root): where a token in a process's environment or command line would be found. */
export function hostProcText(): string {
  let text = "";
  for (const pid of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    for (const file of ["environ", "cmdline"]) {
      try {
        text += readFileSync(`/proc/${pid}/${file}`, "latin1") + "\n";
      } catch {
        // Gone, or a kernel thread.
      }
    }
  }
  return text;
}

/** A model's probe: the environment, the checkout's git config, and every process's environment and command line it can see. */
export const PROBE = `env; cat repo/.git/config 2>/dev/null; for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do tr '\\0' '\\n' < "$f" 2>/dev/null; echo; done; grep -rIl x-access-token . 2>/dev/null; ls /proc | grep -c '^[0-9]'`;

/** A command that leaves a watcher behind, reading every process's environment and command line into `.watch` in the workspace. */
export const WATCHER = `(while :; do for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do tr '\\0' '\\n' < "$f"; done >> .watch 2>/dev/null; sleep 0.05; done) >/dev/null 2>&1 & echo started`;
