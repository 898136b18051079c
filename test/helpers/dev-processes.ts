import { execFile, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, readlinkSync } from "node:fs";
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

/** TCP ports in LISTEN state whose socket is held open by one of `pids`, read from /proc. */
export function listeningPorts(pids: number[]): { host: string; port: number }[] {
  const byInode = new Map<string, { host: string; port: number }>();
  for (const [file, v6] of [["/proc/net/tcp", false], ["/proc/net/tcp6", true]] as const) {
    let table = "";
    try {
      table = readFileSync(file, "utf8");
    } catch {
      continue; // no IPv6 on this host
    }
    for (const line of table.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      // f[1] is local "ADDR:PORT" in hex, f[3] the state (0A: LISTEN), f[9] the socket's inode.
      if (f[3] !== "0A") continue;
      const [addr, port] = f[1]!.split(":");
      byInode.set(f[9]!, { host: v6 ? "::1" : hexToIpv4(addr!), port: parseInt(port!, 16) });
    }
  }
  const found: { host: string; port: number }[] = [];
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // exited meanwhile
    }
    for (const fd of fds) {
      const inode = /^socket:\[(\d+)\]$/.exec(safeReadlink(`/proc/${pid}/fd/${fd}`))?.[1];
      const listener = inode && byInode.get(inode);
      if (listener && !found.some((l) => l.port === listener.port)) found.push(listener);
    }
  }
  return found;
}

/** /proc/net/tcp writes an IPv4 address as one little-endian hex word; 0.0.0.0 is probed on loopback. */
function hexToIpv4(hex: string): string {
  const ip = [3, 2, 1, 0].map((i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join(".");
  return ip === "0.0.0.0" ? "127.0.0.1" : ip;
}

function safeReadlink(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "";
  }
}

/**
 * The listeners among `pids` that answer as a V8/Chrome DevTools inspector does
 * (`GET /json/version` with a `Protocol-Version`): anyone on the machine could attach.
 */
export async function inspectorsAnswering(pids: number[]): Promise<string[]> {
  const found: string[] = [];
  for (const { host, port } of listeningPorts(pids)) {
    const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}/json/version`;
    // A listener that is not HTTP never answers: give up on it rather than hang the test.
    const body = await fetch(url, { signal: AbortSignal.timeout(3_000) }).then((r) => r.text(), () => "");
    if (body.includes("Protocol-Version")) found.push(`${host}:${port}`);
  }
  return found;
}

/** Filesystems mounted at or under `dir` (the rooms' loop-mounted disks), from /proc/self/mountinfo. */
export function mountsUnder(dir: string): string[] {
  return readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[4]?.replace(/\\(\d{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8))))
    .filter((at): at is string => at !== undefined && (at === dir || at.startsWith(`${dir}/`)));
}

/** The executor's cgroup folders for sandbox root `root` that exist (it makes one per hierarchy, named from the root's hash). */
export function executorCgroups(root: string): string[] {
  const name = `duet-sandbox-${createHash("sha256").update(root).digest("hex").slice(0, 12)}`;
  const found: string[] = [];
  for (const line of readFileSync("/proc/self/cgroup", "utf8").trim().split("\n")) {
    const [, controllers, path] = line.split(":") as [string, string, string];
    const base = controllers === "" ? "/sys/fs/cgroup" : join("/sys/fs/cgroup", controllers.split(",")[0]!);
    if (existsSync(join(base, path, name))) found.push(join(base, path, name));
  }
  return found;
}

/** A started process's output as it comes (stdout and stderr together), a wait for a line in it, and its exit. */
export interface WatchedOutput {
  output(): string;
  waitFor(pattern: RegExp): Promise<void>;
  exited: Promise<number | null>;
}

/** Watches `child`'s output; a wait fails, with everything printed, once `name` exits without printing the pattern. */
export function watchOutput(child: ChildProcess, name: string): WatchedOutput {
  let text = "";
  const waiters: { pattern: RegExp; resolve(): void }[] = [];
  const onData = (d: Buffer) => {
    text += d.toString();
    for (const w of [...waiters]) if (w.pattern.test(text)) w.resolve();
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    output: () => text,
    exited,
    waitFor: (pattern) =>
      new Promise<void>((resolve, reject) => {
        if (pattern.test(text)) return resolve();
        waiters.push({ pattern, resolve });
        void exited.then((code) => reject(new Error(`${name} exited (${code}) before printing ${pattern}:\n${text}`)));
      }),
  };
}
