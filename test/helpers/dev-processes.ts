import { execFile } from "node:child_process";
import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** What `pnpm dev` tests share: a home of their own, a clean environment, and an outside view of the processes left. */

/**
 * A temporary DUET_HOME. Readable by others (mkdtemp makes it 0700) because, as root,
 * the executor runs bubblewrap as an unprivileged uid that must reach the workspaces.
 */
export function tempHome(): string {
  const dir = mkdtempSync(join(tmpdir(), "duet-dev-home-"));
  chmodSync(dir, 0o755);
  return dir;
}

/** The environment without anything that would start a bot or pin a token from the caller's shell. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) {
    if (/^(SLACK_|DISCORD_|DUET_|SANDBOX_|MODEL|OPENAI_)/.test(key) || key === "NO_COLOR") delete env[key];
  }
  return { ...env, ...extra };
}

export interface Proc {
  pid: number;
  ppid: number;
  stat: string;
  args: string;
}

/** Every process as `ps` sees it: an independent view of what `pnpm dev` left behind. */
export function processes(): Promise<Proc[]> {
  return new Promise((resolve, reject) =>
    execFile("ps", ["-eo", "pid=,ppid=,stat=,args="], { maxBuffer: 16 * 1024 * 1024 }, (err, out) => {
      if (err) return reject(err);
      resolve(
        out
          .split("\n")
          .map((l) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(l))
          .filter((m): m is RegExpExecArray => m !== null)
          .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), stat: m[3], args: m[4] })),
      );
    }),
  );
}

export function descendants(all: Proc[], root: number): Proc[] {
  const found: Proc[] = [];
  const queue = [root];
  while (queue.length) {
    const parent = queue.shift()!;
    for (const p of all) if (p.ppid === parent && !found.includes(p)) (found.push(p), queue.push(p.pid));
  }
  return found;
}

/** Running (not zombie) processes among `pids`, or whose command line mentions `marker`. */
export async function stillRunning(pids: number[], marker: string): Promise<Proc[]> {
  return (await processes()).filter((p) => !p.stat.startsWith("Z") && (pids.includes(p.pid) || p.args.includes(marker)));
}
