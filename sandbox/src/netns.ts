import { spawn, type ChildProcess } from "node:child_process";
import { networkInterfaces } from "node:os";
import type { Readable } from "node:stream";
import { findProgram, joinGroupsScript } from "./launch.ts";

/**
 * SANDBOX_NETWORK=all on this machine: each command gets a network namespace of its
 * own, joined to the outside by slirp4netns (user-mode NAT: it makes the sandbox's
 * connections as ordinary sockets of its own). The host's network is never shared,
 * so nothing listening on the host's loopback (the Worker, the executor, wrangler's
 * inspector) is reachable:
 *
 *   - 127.0.0.0/8 and ::1 inside are the namespace's own loopback;
 *   - `--disable-host-loopback` stops slirp4netns mapping its gateway (10.0.2.2) to
 *     the host's 127.0.0.1;
 *   - the host's own addresses, link-local 169.254.0.0/16 and 0.0.0.0/8 get blackhole
 *     routes in the namespace (slirp4netns would otherwise connect to them from the
 *     host); the sandbox's user has no capability over that namespace to undo them;
 *   - slirp4netns offers no IPv6 unless asked, so no v6 address (fe80::/10, the
 *     host's ::1) is routable at all.
 *
 * The order per command: `unshare --net` starts a shell in a fresh namespace, which
 * says so on fd 3 and waits on stdin; slirp4netns (as root: /dev/net/tun is usually
 * root's) attaches and reports ready; the routes go in; then the shell execs
 * bubblewrap (`--share-net`: that fresh namespace) as the sandbox's host uid.
 *
 * slirp4netns does the sandbox's networking with its own sockets and CPU, so it is
 * the room's as much as the command is: it joins the room's cgroups before it
 * starts (its memory, CPU and process count are the room's) and gets an open-files
 * limit of its own (SLIRP_MAX_FILES) instead of the executor's.
 */

/** slirp4netns's default addresses: gateway, DNS forwarder, the namespace's own. */
export const SLIRP_GATEWAY = "10.0.2.2";
export const SLIRP_DNS = "10.0.2.3";
/** The resolver inside: slirp4netns forwards it to the host's, so names resolve without the host's resolv.conf. */
export const SANDBOX_RESOLV_CONF = `nameserver ${SLIRP_DNS}\n`;
/** Never routed out of the namespace: link-local (cloud metadata services) and "this host". */
const ALWAYS_BLOCKED = ["169.254.0.0/16", "0.0.0.0/8"];
/**
 * Open files one slirp4netns may hold: about one per connection the sandbox has open
 * through it. A package install keeps a few dozen; the executor's own limit (20,000
 * on this kind of host) let one room hold thousands of the host's descriptors.
 */
export const SLIRP_MAX_FILES = 1024;
/** How long slirp4netns and `ip` may take before the command fails rather than hangs. */
const SETUP_TIMEOUT_MS = 10_000;

export interface NetTools {
  unshare: string;
  setpriv: string;
  slirp4netns: string;
  nsenter: string;
  ip: string;
}

/**
 * The programs a private network needs, or the one line start-up refuses with.
 * Root is needed to open /dev/net/tun for slirp4netns and to make the namespace
 * before dropping to the sandbox's uid.
 */
export function findNetTools(isRoot: boolean): NetTools | string {
  const refuse = (why: string) =>
    `SANDBOX_NETWORK=all needs ${why} to give each sandbox a network of its own (never the host's loopback): ${
      isRoot ? "install it (apt-get install slirp4netns util-linux iproute2)" : "run the executor as root"
    }, or set SANDBOX_NETWORK=none`;
  if (!isRoot) return refuse("the executor to run as root");
  const tools = {
    slirp4netns: findProgram("slirp4netns"),
    unshare: findProgram("unshare"),
    setpriv: findProgram("setpriv"),
    nsenter: findProgram("nsenter"),
    ip: findProgram("ip"),
  };
  const missing = Object.entries(tools).filter(([, p]) => !p).map(([n]) => n);
  if (missing.length) return refuse(`${missing.join(", ")} (Debian packages slirp4netns, util-linux, iproute2), which ${missing.length > 1 ? "are" : "is"} missing`);
  return tools as NetTools;
}

/** The host's own IPv4 addresses as blackhole routes, plus the ranges never routed. Read per command: addresses change. */
export function blockedRoutes(): string[] {
  const own = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && a.family === "IPv4" && !a.internal)
    .map((a) => `${a!.address}/32`);
  return [...new Set([...own, ...ALWAYS_BLOCKED])];
}

/** Resolves with the first chunk on `stream`; rejects when `proc` exits first or time runs out. */
function firstData(stream: Readable, proc: ChildProcess, what: string, stderr: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`${what} did not start within ${SETUP_TIMEOUT_MS} ms`)), SETUP_TIMEOUT_MS);
    const onExit = (code: number | null) => done(new Error(`${what} exited (${code ?? "killed"}): ${stderr().trim().split("\n").pop() ?? ""}`));
    const done = (err?: Error) => {
      clearTimeout(timer);
      stream.off("data", onData);
      proc.off("exit", onExit);
      if (err) reject(err);
      else resolve();
    };
    const onData = () => done();
    stream.on("data", onData);
    stream.on("error", () => {});
    proc.once("exit", onExit);
  });
}

function run(argv: string[], input: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "ignore", "pipe"] });
    let err = "";
    p.stderr!.on("data", (d) => (err += d));
    p.once("error", reject);
    p.once("close", (code) => (code === 0 ? resolve() : reject(new Error(`${argv[0]} failed: ${err.trim()}`))));
    p.stdin!.end(input);
  });
}

/**
 * slirp4netns for the namespace of process `pid`, started by a shell that first joins
 * the room's cgroups (`cgroupProcs`; none for the start-up probe) and lowers its
 * open-files limit, soft and hard, then execs it: it never runs outside the room.
 */
export function slirpArgv(tools: NetTools, pid: number, cgroupProcs: string[]): string[] {
  // fd 3: slirp4netns writes when the interface is up; fd 4: closing our end tells it to exit
  // (and it does when the executor dies, since only we hold that end).
  const slirp = [tools.slirp4netns, "--configure", "--mtu=65520", "--disable-host-loopback", "--enable-sandbox", "--enable-seccomp", "--ready-fd=3", "--exit-fd=4", String(pid), "tap0"];
  return ["/bin/sh", "-c", `${joinGroupsScript(cgroupProcs)}ulimit -n ${SLIRP_MAX_FILES} || exit 125; exec "$@"`, "sh", ...slirp];
}

/**
 * Connects the namespace of `child` (started by launch.ts with `unshare`) to the outside
 * and blocks the host's addresses in it; slirp4netns joins `cgroupProcs`, the room's
 * groups. Resolves with the function that stops slirp4netns once the command is over.
 */
export async function connectPrivateNet(tools: NetTools, child: ChildProcess, cgroupProcs: string[]): Promise<() => void> {
  await firstData(child.stdio[3] as Readable, child, "unshare --net", () => "");
  const pid = String(child.pid);
  const [shell, ...args] = slirpArgv(tools, child.pid!, cgroupProcs);
  const slirp = spawn(shell!, args, { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
  let slirpErr = "";
  slirp.stderr!.on("data", (d) => (slirpErr += d));
  slirp.once("error", () => {});
  const stop = () => {
    (slirp.stdio[4] as Readable | null)?.destroy();
    slirp.kill("SIGKILL");
  };
  try {
    await firstData(slirp.stdio[3] as Readable, slirp, "slirp4netns", () => slirpErr);
    const batch = blockedRoutes().map((r) => `route add blackhole ${r}\n`).join("");
    await run([tools.nsenter, `--net=/proc/${pid}/ns/net`, "--", tools.ip, "-batch", "-"], batch);
  } catch (err) {
    stop();
    throw new Error(`cannot set up the sandbox's network: ${(err as Error).message}`);
  }
  return stop;
}
