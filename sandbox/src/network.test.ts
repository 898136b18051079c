import { createServer, type Server } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig, StartupError, startExecutor } from "./index.ts";
import { startTestExecutor, type TestExecutor } from "./test-support.ts";

// SANDBOX_NETWORK in the local executor: bubblewrap can give a sandbox no network
// (none) or the host's (all); anything that needs a host list is refused at start.

let server: Server;
let port: number;
let connections = 0;
let none: TestExecutor;
let all: TestExecutor;

beforeAll(async () => {
  server = createServer((socket) => {
    connections++;
    socket.end("hello from the host\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
  none = await startTestExecutor({ network: loadConfig({}).network });
  all = await startTestExecutor({ network: loadConfig({ SANDBOX_NETWORK: "all" }).network });
});

afterAll(async () => {
  await none?.stop();
  await all?.stop();
  await new Promise((resolve) => server?.close(resolve));
});

const probe = () => `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected && cat <&3`;

describe("SANDBOX_NETWORK", () => {
  test("none (the default): a connection to a server on the host's 127.0.0.1 fails", async () => {
    const before = connections;
    const r = await none.exec("sandbox-net-none", probe(), 10_000);
    expect(r.exitCode).not.toBe(0);
    expect(r.stdout).not.toContain("connected");
    expect(connections).toBe(before);
  });

  test("all: the same connection reaches the server", async () => {
    const before = connections;
    const r = await all.exec("sandbox-net-all", probe(), 10_000);
    expect(r).toMatchObject({ exitCode: 0, stdout: "connected\nhello from the host\n" });
    expect(connections).toBe(before + 1);
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

  test("a malformed value stops start-up with one line naming the variable", () => {
    expect(() => loadConfig({ SANDBOX_NETWORK: "open" })).toThrow(/^sandbox executor misconfigured: SANDBOX_NETWORK must be none, registries, all/);
  });
});
