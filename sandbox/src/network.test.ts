import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createServer, connect, type Server } from "node:net";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig, StartupError, startExecutor } from "./index.ts";
import { findNetTools, SLIRP_MAX_FILES } from "./netns.ts";
import { startTestExecutor, type TestExecutor } from "./test-support.ts";

// SANDBOX_NETWORK in the local executor: none gives a sandbox no network at all; all
// gives it a network namespace of its own with NAT to the outside (slirp4netns), in
// which the host's loopback and the host's own addresses are unreachable. Anything
// that needs a host list is refused at start.

let server: Server;
let port: number;
let connections = 0;
let none: TestExecutor;
let all: TestExecutor;

/** A host listener on every address (0.0.0.0 and ::): reachable through loopback and each of the host's addresses. */
let wide: Server;
let widePort: number;
let wideConnections = 0;

/**
 * "The outside": a server in a network namespace of its own, joined to the host by a
 * veth pair, as a machine on another network would be. 198.18.0.0/15 is the range set
 * aside for such tests; the third byte from our pid keeps parallel runs apart.
 */
const NETNS = `duet-test-out-${process.pid}`;
const OUTSIDE_NET = `198.18.${process.pid % 250}`;
const OUTSIDE_IP = `${OUTSIDE_NET}.2`;
const OUTSIDE_PORT = 18_080;
/** On the same outside server: accepts and holds every connection, as a slow or hostile peer would. */
const HOLD_PORT = 18_081;
let outside: ChildProcess | undefined;

const ip = (...args: string[]) => execFileSync("ip", args, { stdio: ["ignore", "ignore", "pipe"] });

async function startOutside(): Promise<void> {
  ip("netns", "add", NETNS);
  ip("link", "add", `dto${process.pid % 100000}`, "type", "veth", "peer", "name", "eth0", "netns", NETNS);
  ip("addr", "add", `${OUTSIDE_NET}.1/30`, "dev", `dto${process.pid % 100000}`);
  ip("link", "set", `dto${process.pid % 100000}`, "up");
  ip("-n", NETNS, "addr", "add", `${OUTSIDE_IP}/30`, "dev", "eth0");
  ip("-n", NETNS, "link", "set", "eth0", "up");
  ip("-n", NETNS, "link", "set", "lo", "up");
  const code = [
    `require("net").createServer((s) => s.on("error", () => {})).listen({ port: ${HOLD_PORT}, host: "${OUTSIDE_IP}", backlog: 4096 })`,
    `require("net").createServer((s) => s.end("hello from outside\\n")).listen(${OUTSIDE_PORT}, "${OUTSIDE_IP}", () => console.log("up"))`,
  ].join(";");
  outside = spawn("ip", ["netns", "exec", NETNS, process.execPath, "-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    outside!.stdout!.once("data", () => resolve());
    outside!.once("exit", (c) => reject(new Error(`outside server exited ${c}`)));
  });
}

function stopOutside(): void {
  outside?.kill("SIGKILL");
  try {
    ip("netns", "delete", NETNS); // takes the veth pair with it
  } catch {
    // Never made.
  }
}

beforeAll(async () => {
  server = createServer((socket) => {
    connections++;
    socket.end("hello from the host\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
  wide = createServer({}, (socket) => {
    wideConnections++;
    socket.on("error", () => {}); // the test's own client hangs up at once
    socket.end("hello from the host\n");
  });
  await new Promise<void>((resolve) => wide.listen({ port: 0, host: "::", ipv6Only: false }, resolve));
  widePort = (wide.address() as { port: number }).port;
  await startOutside();
  none = await startTestExecutor({ network: loadConfig({}).network });
  all = await startTestExecutor({ network: loadConfig({ SANDBOX_NETWORK: "all" }).network });
});

afterAll(async () => {
  await none?.stop();
  await all?.stop();
  stopOutside();
  await new Promise((resolve) => server?.close(resolve));
  await new Promise((resolve) => wide?.close(resolve));
});

const probe = () => `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected && cat <&3`;
/** One line per address: `<addr> connected` or `<addr> failed`, with a 3 s cap per try. */
const tryEach = (targets: Array<[string, number]>) =>
  targets.map(([a, p]) => `timeout 3 bash -c 'exec 3<>/dev/tcp/${a}/${p}' 2>/dev/null && echo "${a}:${p} connected" || echo "${a}:${p} failed"`).join("; ");
/** The host's own addresses besides loopback (its interfaces', the test's veth end among them). */
const hostAddresses = () =>
  Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && !a.internal && a.family === "IPv4")
    .map((a) => a!.address);

/** A process's field from /proc (e.g. its cgroups, its limits); "" once it is gone. */
const procFile = (pid: number, file: string) => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return "";
  }
};

/**
 * The running slirp4netns processes this test process started (through the executors it
 * runs in-process). Not zombies: an exited one reads as in the root groups.
 */
const ourSlirps = () =>
  readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      const [state, ppid] = procFile(pid, "stat").split(") ")[1]?.split(" ") ?? [];
      return procFile(pid, "comm").trim() === "slirp4netns" && state !== "Z" && Number(ppid) === process.pid;
    });

interface SlirpSeen {
  cgroups: string;
  limits: string;
  mostFds: number;
}

/** Runs `command` in `room` under `all` and, while it runs, watches its slirp4netns: groups, limits, the most files it held. */
async function watchSlirp(room: string, command: string, timeoutMs: number) {
  const seen: SlirpSeen = { cgroups: "", limits: "", mostFds: 0 };
  // An earlier command's slirp4netns may still be exiting, and one that is exiting reads
  // as in the root groups: only the one started for this command is watched.
  const earlier = new Set(ourSlirps());
  const timer = setInterval(() => {
    for (const pid of ourSlirps().filter((p) => !earlier.has(p))) {
      seen.cgroups ||= procFile(pid, "cgroup");
      seen.limits ||= procFile(pid, "limits");
      try {
        seen.mostFds = Math.max(seen.mostFds, readdirSync(`/proc/${pid}/fd`).length);
      } catch {
        // Exited between the listing and the read.
      }
    }
  }, 25);
  try {
    return { result: await all.exec(room, command, timeoutMs), seen };
  } finally {
    clearInterval(timer);
  }
}

describe("SANDBOX_NETWORK", () => {
  test("none (the default): a connection to a server on the host's 127.0.0.1 fails", async () => {
    const before = connections;
    const r = await none.exec("sandbox-net-none", probe(), 10_000);
    expect(r.exitCode).not.toBe(0);
    expect(r.stdout).not.toContain("connected");
    expect(connections).toBe(before);
  });

  test("all: a command cannot connect to the host's 127.0.0.1 or ::1, nor to the executor's own port", async () => {
    const before = { connections, wideConnections };
    const targets: Array<[string, number]> = [["127.0.0.1", port], ["127.0.0.1", widePort], ["::1", widePort], ["127.0.0.1", all.port], ["localhost", all.port], ["10.0.2.2", port], ["10.0.2.2", widePort]];
    const r = await all.exec("sandbox-net-all", tryEach(targets), 60_000);
    expect(r.stdout.trim().split("\n")).toEqual(targets.map(([a, p]) => `${a}:${p} failed`));
    expect({ connections, wideConnections }).toEqual(before);
    // The same listeners do answer a client on the host, so the probe can succeed.
    await new Promise<void>((resolve, reject) => {
      const client = connect(widePort, "::1", () => resolve(void client.destroy())).once("error", reject);
    });
  });

  test("all: nor to any of the host's other addresses", async () => {
    const before = wideConnections;
    const targets = hostAddresses().map((a): [string, number] => [a, widePort]);
    expect(targets.length).toBeGreaterThan(0);
    const r = await all.exec("sandbox-net-all", tryEach(targets), 60_000);
    expect(r.stdout.trim().split("\n")).toEqual(targets.map(([a, p]) => `${a}:${p} failed`));
    expect(wideConnections).toBe(before);
  });

  test("all: an address outside this machine is reached (a server in a network namespace of its own)", async () => {
    const r = await all.exec("sandbox-net-all", `exec 3<>/dev/tcp/${OUTSIDE_IP}/${OUTSIDE_PORT} && cat <&3`, 20_000);
    expect(r).toMatchObject({ exitCode: 0, stdout: "hello from outside\n" });
  });

  test("all: the sandbox cannot take its blocks away (no capability over its network)", async () => {
    const r = await all.exec("sandbox-net-all", `ip route del blackhole ${hostAddresses()[0]}/32 2>&1; ip route flush table main 2>&1; echo exit=$?`);
    expect(r.stdout).toContain("Operation not permitted");
    const again = await all.exec("sandbox-net-all", tryEach([[hostAddresses()[0], widePort]]), 20_000);
    expect(again.stdout.trim()).toBe(`${hostAddresses()[0]}:${widePort} failed`);
  });

  test("all: a room's slirp4netns runs in the room's cgroups, with an open-files limit of its own", async () => {
    const { result, seen } = await watchSlirp("sandbox-net-slirp", "sleep 1; echo done", 20_000);
    expect(result.stdout).toBe("done\n");
    // Its memory, processes and CPU are the room's: each controller's group is the room's own.
    for (const controller of ["memory", "pids", "cpu"]) {
      expect(seen.cgroups).toMatch(new RegExp(`^\\d+:[^:]*\\b${controller}\\b[^:]*:.*/duet-sandbox-[0-9a-f]{12}/sandbox-net-slirp$`, "m"));
    }
    // Soft and hard alike, so it cannot raise it back.
    expect(seen.limits).toMatch(new RegExp(`^Max open files\\s+${SLIRP_MAX_FILES}\\s+${SLIRP_MAX_FILES}\\s+files`, "m"));
  });

  test(`all: a room opening 3,000 connections through slirp4netns holds at most ${SLIRP_MAX_FILES} of the host's files`, async () => {
    // Non-blocking connects to a server that accepts and holds each one; each costs slirp4netns a socket.
    const flood = `python3 -c '
import socket, time
held = []
for i in range(3000):
    c = socket.socket(); c.setblocking(False); c.connect_ex(("${OUTSIDE_IP}", ${HOLD_PORT})); held.append(c)
time.sleep(3)
print("held", len(held))'`;
    const { result, seen } = await watchSlirp("sandbox-net-fds", flood, 60_000);
    expect(result.stdout).toBe("held 3000\n");
    // Reaching the cap shows the flood did press on it; before, slirp4netns took one file per connection.
    expect(seen.mostFds).toBeGreaterThan(SLIRP_MAX_FILES / 2);
    expect(seen.mostFds).toBeLessThanOrEqual(SLIRP_MAX_FILES);
    // And the room's network still works afterwards.
    const r = await all.exec("sandbox-net-fds", `exec 3<>/dev/tcp/${OUTSIDE_IP}/${OUTSIDE_PORT} && cat <&3`, 20_000);
    expect(r).toMatchObject({ exitCode: 0, stdout: "hello from outside\n" });
  });

  test("all: a UDP flood's cost in slirp4netns is held to the room's CPU share", async () => {
    // A room of a tenth of a CPU sends UDP as fast as it can for 3 s (two senders); slirp4netns
    // forwards every datagram. Together they may use the room's share, not more.
    const cpus = 0.1;
    const small = await startTestExecutor({ network: loadConfig({ SANDBOX_NETWORK: "all" }).network, maxCpus: cpus });
    try {
      // Each sender prints the CPU it used (user and system seconds).
      const sender = `python3 -c 'import os, socket, time; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); end = time.time() + 3
while time.time() < end:
    try: s.sendto(b"x" * 1200, ("${OUTSIDE_IP}", 9))
    except OSError: pass
print(sum(os.times()[:2]))'`;
      let slirpCpu = 0;
      const ticksPerSecond = 100; // USER_HZ, the unit of /proc/<pid>/stat's utime and stime
      const timer = setInterval(() => {
        for (const pid of ourSlirps()) {
          const f = procFile(pid, "stat").split(") ")[1]?.split(" ") ?? [];
          slirpCpu = Math.max(slirpCpu, (Number(f[11]) + Number(f[12])) / ticksPerSecond);
        }
      }, 25);
      const r = await small.exec("sandbox-net-udp", `${sender} & ${sender} & wait`, 60_000).finally(() => clearInterval(timer));
      const sandboxCpu = r.stdout.trim().split("\n").map(Number).reduce((a, b) => a + b, 0);
      // Over the command's whole run: slirp4netns starts before the senders and drains after them.
      const wall = r.duration / 1000;
      const used = `sandbox ${sandboxCpu.toFixed(2)} s + slirp4netns ${slirpCpu.toFixed(2)} s of CPU in ${wall.toFixed(2)} s`;
      expect(slirpCpu, used).toBeGreaterThan(0);
      // 10% for the sampling: slirp4netns's last 25 ms and the kernel's accounting period.
      expect(sandboxCpu + slirpCpu, used).toBeLessThanOrEqual(cpus * wall * 1.1);
    } finally {
      await small.stop();
    }
  });

  test("all: the sandbox still cannot see the host's files or environment", async () => {
    const r = await all.exec("sandbox-net-all", "ls /root /work 2>&1 | head -2; env | cut -d= -f1 | sort | tr '\\n' ' '");
    expect(r.stdout).toContain("No such file or directory");
    expect(r.stdout).toContain("HOME LANG LOGNAME PATH PWD SHELL SHLVL TERM TMPDIR USER _");
  });

  test.each([
    [{ SANDBOX_NETWORK: "registries" }, /^SANDBOX_NETWORK=registries cannot be enforced by the local sandbox executor \(bubblewrap .*\): set SANDBOX_NETWORK=none or all here/],
    [{ SANDBOX_ALLOWED_HOSTS: "pypi.org" }, /^SANDBOX_ALLOWED_HOSTS cannot be enforced by the local sandbox executor .*: unset it, or set SANDBOX_NETWORK=all$/],
    [{ SANDBOX_NETWORK: "all", SANDBOX_DENIED_HOSTS: "evil.example" }, /^SANDBOX_DENIED_HOSTS cannot be enforced .* with SANDBOX_NETWORK=all .*: unset it, or set SANDBOX_NETWORK=none$/],
  ])("%o is refused at start with one line", async (env, message) => {
    const root = mkdtempSync(join(tmpdir(), "duet-sandbox-net-"));
    try {
      const started = startExecutor({ port: 0, root, isolation: "bwrap", network: loadConfig(env).network }, () => {});
      await expect(started).rejects.toBeInstanceOf(StartupError);
      const line = (await started.catch((e: Error) => e.message)) as string;
      expect(line).toMatch(message);
      expect(line).not.toContain("\n");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test("all without what a private network needs (here: root) is refused with one line", () => {
    const line = findNetTools(false) as string;
    expect(line).toMatch(/^SANDBOX_NETWORK=all needs the executor to run as root to give each sandbox a network of its own .*or set SANDBOX_NETWORK=none$/);
    expect(line).not.toContain("\n");
  });

  test("a malformed value stops start-up with one line naming the variable", () => {
    expect(() => loadConfig({ SANDBOX_NETWORK: "open" })).toThrow(/^sandbox executor misconfigured: SANDBOX_NETWORK must be none, registries, all/);
  });
});
