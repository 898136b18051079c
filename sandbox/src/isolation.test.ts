import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTestExecutor, type TestExecutor } from "./test-support.ts";

// What must NOT reach a sandbox: the network, the host's files, the host's environment.
// Each check also runs once without isolation (SANDBOX_ISOLATION=none) to show the
// probe itself works: the same command does reach the server / read the file there.

const FAKE_SECRET = "xoxb-fake-secret-for-isolation-test";

let ex: TestExecutor;
let bare: TestExecutor;
let server: Server;
let port: number;
let connections = 0;
let secretDir: string;
let secretFile: string;

beforeAll(async () => {
  // Set before start: the executor must not pass it on even though it sees it.
  process.env.SLACK_BOT_TOKEN = FAKE_SECRET;
  ex = await startTestExecutor();
  bare = await startTestExecutor({ isolation: "none" });

  server = createServer((socket) => {
    connections++;
    socket.end("hello from the host\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;

  // World-readable on purpose: only isolation, not file permissions, may hide it.
  secretDir = mkdtempSync(join(tmpdir(), "duet-host-secret-"));
  chmodSync(secretDir, 0o755);
  secretFile = join(secretDir, "secret.txt");
  writeFileSync(secretFile, "host-only-secret\n", { mode: 0o644 });
});

afterAll(async () => {
  delete process.env.SLACK_BOT_TOKEN;
  await ex?.stop();
  await bare?.stop();
  await new Promise((resolve) => server?.close(resolve));
  rmSync(secretDir, { recursive: true, force: true });
});

describe("network", () => {
  test("a connection to a server on the host's 127.0.0.1 fails from inside the sandbox", async () => {
    const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected && cat <&3`;
    const before = connections;
    const r = await ex.exec("sandbox-net", probe, 10_000);
    expect(r.exitCode).not.toBe(0);
    expect(r.stdout).not.toContain("connected");
    expect(r.stderr).toMatch(/Connection refused|Network is unreachable|Cannot assign requested address/);
    expect(connections).toBe(before);

    const control = await bare.exec("sandbox-net", probe, 10_000);
    expect(control.stdout).toBe("connected\nhello from the host\n");
    expect(connections).toBe(before + 1);
  });

  test("there is no network interface but a (down or bare) loopback, and no DNS", async () => {
    const r = await ex.exec("sandbox-net", "ls /sys/class/net 2>/dev/null || cat /proc/net/dev | tail -n +3 | cut -d: -f1; getent hosts example.com || echo no-dns");
    expect(r.stdout).not.toMatch(/eth|ens|enp|wl|docker|veth/);
    expect(r.stdout).toContain("no-dns");
  });
});

describe("host files", () => {
  test("the repo, /root, /home and the test's own tmp files are not there", async () => {
    const cmd = `for p in /work/main/package.json /work /root /home ${secretFile}; do if [ -e "$p" ]; then echo "visible $p"; else echo "absent $p"; fi; done; cat ${secretFile} 2>&1 | head -1`;
    const r = await ex.exec("sandbox-files", cmd);
    expect(r.stdout).toBe(
      ["/work/main/package.json", "/work", "/root", "/home", secretFile].map((p) => `absent ${p}\n`).join("") +
        `cat: ${secretFile}: No such file or directory\n`,
    );

    const control = await bare.exec("sandbox-files", `cat ${secretFile}`);
    expect(control.stdout).toBe("host-only-secret\n");
  });

  test("the host's processes are not visible: /proc is the sandbox's own", async () => {
    const r = await ex.exec("sandbox-files", `cat /proc/${process.pid}/environ 2>&1 | head -c 200; echo; ls /proc | grep -c '^[0-9]'`);
    expect(r.stdout).not.toContain(FAKE_SECRET);
    expect(r.stdout).toContain("No such file or directory");
    expect(Number(r.stdout.trim().split("\n").at(-1))).toBeLessThan(10);
  });

  test("/etc holds no host accounts: passwd is the generated one", async () => {
    const r = await ex.exec("sandbox-files", "cut -d: -f1 /etc/passwd | tr '\\n' ' '; ls /etc/shadow 2>&1 | head -1");
    expect(r.stdout).toBe("root sandbox nobody ls: cannot access '/etc/shadow': No such file or directory\n");
  });

  test("the sandbox runs unprivileged: uid 1000, no capabilities", async () => {
    const r = await ex.exec("sandbox-files", "id -u; grep CapEff /proc/self/status");
    expect(r.stdout).toBe("1000\nCapEff:\t0000000000000000\n");
  });
});

describe("environment", () => {
  test("no host secrets: only the sandbox's own variables", async () => {
    // The executor's own process does have it.
    expect(process.env.SLACK_BOT_TOKEN).toBe(FAKE_SECRET);
    const r = await ex.exec("sandbox-env", "env | cut -d= -f1 | sort | tr '\\n' ' '; env | grep -c xoxb");
    expect(r.stdout).toBe("HOME LANG LOGNAME PATH PWD SHELL SHLVL TERM TMPDIR USER _ 0\n");
  });
});
