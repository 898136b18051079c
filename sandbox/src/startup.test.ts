import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, test } from "vitest";
import { mountsUnder } from "../../test/helpers/dev-processes.ts";
import { ConfigError, loadConfig, StartupError, startExecutor } from "./index.ts";

// Start-up: refuse clearly (one line) when commands could not be sandboxed, warn loudly without isolation.

const SANDBOX_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
const roots: string[] = [];
const tmpRoot = () => {
  const dir = mkdtempSync(join(tmpdir(), "duet-sandbox-start-"));
  roots.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of roots) rmSync(dir, { recursive: true, force: true });
});

describe("startExecutor", () => {
  test("refuses with one line naming the package when bwrap is missing", async () => {
    const started = startExecutor({ port: 0, root: tmpRoot(), isolation: "bwrap", bwrapPath: "/nonexistent/bwrap" }, () => {});
    await expect(started).rejects.toBeInstanceOf(StartupError);
    const message = (await started.catch((e: Error) => e.message)) as string;
    expect(message).toContain("install the Debian package `bubblewrap`");
    expect(message).toContain("/nonexistent/bwrap");
    expect(message).not.toContain("\n");
  });

  test("refuses when bwrap is there but cannot build a sandbox (the `true` probe fails)", async () => {
    const started = startExecutor({ port: 0, root: tmpRoot(), isolation: "bwrap", bwrapPath: "/bin/false" }, () => {});
    await expect(started).rejects.toThrow(/^bubblewrap at \/bin\/false cannot create a sandbox.*: exit code 1$/);
  });

  test("SANDBOX_ISOLATION=none runs a plain shell in the workspace and warns on every start", async () => {
    for (let i = 0; i < 2; i++) {
      const logged: string[] = [];
      const root = tmpRoot();
      const ex = await startExecutor({ port: 0, root, isolation: "none", token: undefined }, (l) => logged.push(l));
      try {
        expect(logged).toHaveLength(1);
        expect(logged[0]).toMatch(/^\[sandbox\] WARNING: SANDBOX_ISOLATION=none: commands run as a plain shell on this machine/);
        const ping = await fetch(`${ex.url}/api/ping`).then((r) => r.json());
        expect(ping).toEqual({ ok: true, isolation: "none" });
        const r = await fetch(`${ex.url}/api/execute`, {
          method: "POST",
          body: JSON.stringify({ command: "pwd; echo $HOME", sessionId: "sandbox-plain" }),
        }).then((r) => r.json());
        const ws = join(root, "sessions", "sandbox-plain");
        expect(r).toMatchObject({ exitCode: 0, stdout: `${ws}\n${ws}\n` });
      } finally {
        await ex.close();
      }
    }
  });
});

describe("config", () => {
  test.each([
    [{ SANDBOX_PORT: "http" }, "SANDBOX_PORT must be an integer from 0 to 65535"],
    [{ SANDBOX_ISOLATION: "docker" }, "SANDBOX_ISOLATION must be bwrap or none"],
    [{ SANDBOX_MAX_CONCURRENT: "0" }, "SANDBOX_MAX_CONCURRENT must be an integer from 1 to 64"],
    [{ SANDBOX_MAX_OUTPUT_BYTES: "1.5" }, "SANDBOX_MAX_OUTPUT_BYTES must be an integer"],
    [{ SANDBOX_MAX_WAITING: "-1" }, "SANDBOX_MAX_WAITING must be an integer from 0 to 65536"],
  ])("%o is refused with one line naming it", (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  test("defaults: 127.0.0.1:8788, bubblewrap, 4 at once and 256 waiting, 1 MiB per stream, workspaces under <repo>/.duet", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ host: "127.0.0.1", port: 8788, isolation: "bwrap", maxConcurrent: 8, maxWaiting: 256, maxOutputBytes: 1024 * 1024, token: undefined });
    expect(c.root).toBe(join(SANDBOX_DIR, "..", ".duet", "sandboxes"));
  });
});

describe("the CLI (pnpm dev:sandbox)", () => {
  /** An executor a failed test left running is stopped as a person would, so its disks are unmounted before the folders go. */
  const stopLeftovers = async (child: ReturnType<typeof spawn>, exited: Promise<number | null>) => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  const leftovers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(leftovers.splice(0).map((stop) => stop()));
  });

  /** Runs src/main.ts with `env`; resolves when it exits, or when `until` matches its stdout. */
  function runCli(env: Record<string, string>, until?: RegExp) {
    const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: SANDBOX_DIR,
      // DUET_HOME: an empty one, so a developer's own .duet/tokens.env is never read.
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", SANDBOX_PORT: "0", SANDBOX_ROOT: tmpRoot(), DUET_HOME: tmpRoot(), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    leftovers.push(() => stopLeftovers(child, exited));
    const ready = new Promise<RegExpMatchArray>((resolve, reject) => {
      child.stdout.on("data", (d) => {
        stdout += d;
        const m = until && stdout.match(until);
        if (m) resolve(m);
      });
      exited.then(() => reject(new Error(`exited: ${stderr}`)));
    });
    ready.catch(() => {}); // Only awaited by tests that expect it to start.
    return { child, exited, ready, out: () => ({ stdout, stderr }) };
  }

  test("exits 1 with ONE line naming `bubblewrap` when bwrap is missing", async () => {
    const cli = runCli({ SANDBOX_BWRAP: "/nonexistent/bwrap", SANDBOX_TOKEN: "t0ken-for-test" });
    expect(await cli.exited).toBe(1);
    const lines = cli.out().stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^bubblewrap is not installed .*`bubblewrap`/);
  });

  test("exits 1 with one line naming a malformed variable", async () => {
    const cli = runCli({ SANDBOX_MAX_CONCURRENT: "lots", SANDBOX_TOKEN: "t0ken-for-test" });
    expect(await cli.exited).toBe(1);
    expect(cli.out().stderr.trim()).toBe("sandbox executor misconfigured: SANDBOX_MAX_CONCURRENT must be an integer from 1 to 64");
  });

  test("starts, answers, and stops on SIGTERM", async () => {
    const cli = runCli({ SANDBOX_TOKEN: "cli-token" }, /listening on (http:\/\/127\.0\.0\.1:\d+) \(isolation: bwrap/);
    const [, url] = await cli.ready;
    const r = await fetch(`${url}/api/execute`, {
      method: "POST",
      headers: { authorization: "Bearer cli-token" },
      body: JSON.stringify({ command: "echo from-cli", sessionId: "sandbox-cli" }),
    }).then((r) => r.json());
    expect(r).toMatchObject({ exitCode: 0, stdout: "from-cli\n" });
    cli.child.kill("SIGTERM");
    expect(await cli.exited).toBe(0);
  });

  // The copies of one stop request (a group's SIGTERM and npm's relay of it; a terminal's Ctrl-C relayed by tsx).
  test.each(["SIGTERM", "SIGINT"] as const)("four rooms' disks mounted, %s twice at once: exits 0 with every disk unmounted", async (signal) => {
    const root = tmpRoot();
    const cli = runCli({ SANDBOX_TOKEN: "cli-token", SANDBOX_ROOT: root }, /listening on (http:\/\/127\.0\.0\.1:\d+) \(isolation: bwrap/);
    const [, url] = await cli.ready;
    for (const room of ["one", "two", "three", "four"]) {
      const r = await fetch(`${url}/api/execute`, {
        method: "POST",
        headers: { authorization: "Bearer cli-token" },
        body: JSON.stringify({ command: "echo ran > here", sessionId: `sandbox-stop-${room}` }),
      }).then((r) => r.json());
      expect(r).toMatchObject({ exitCode: 0 });
    }
    // Where loop mounts are allowed (root), each room has its disk: its absence afterwards then proves the unmount.
    const mountsBefore = mountsUnder(root).length;
    if (process.getuid?.() === 0) expect(mountsBefore).toBeGreaterThanOrEqual(4);
    cli.child.kill(signal);
    cli.child.kill(signal);
    expect(await cli.exited).toBe(0);
    expect(cli.out().stderr).not.toContain("stopping at once");
    expect(mountsUnder(root)).toEqual([]);
  });

  const execute = (url: string, token?: string) =>
    fetch(`${url}/api/execute`, {
      method: "POST",
      headers: token ? { authorization: `Bearer ${token}` } : {},
      body: JSON.stringify({ command: "echo ran", sessionId: "sandbox-cli" }),
    });

  test("without SANDBOX_TOKEN and no .duet/tokens.env it refuses to start, in one line", async () => {
    const cli = runCli({});
    expect(await cli.exited).toBe(1);
    const lines = cli.out().stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^SANDBOX_TOKEN is not set and .*tokens\.env has none: .*or set SANDBOX_TOKEN=none-i-know to start an open executor on purpose$/);
  });

  test("reads SANDBOX_TOKEN from DUET_HOME/tokens.env, as pnpm dev does, and asks for it", async () => {
    const home = tmpRoot();
    writeFileSync(join(home, "tokens.env"), "DUET_API_TOKEN=other\nSANDBOX_TOKEN=from-the-file-123\n", { mode: 0o600 });
    const cli = runCli({ DUET_HOME: home }, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const [, url] = await cli.ready;
    expect((await execute(url)).status).toBe(401);
    expect(await (await execute(url, "from-the-file-123")).json()).toMatchObject({ exitCode: 0, stdout: "ran\n" });
    cli.child.kill("SIGTERM");
    expect(await cli.exited).toBe(0);
  });

  test("a second executor on the same root is refused in one line and the first keeps working; a dead one's lock is taken over", async () => {
    const root = tmpRoot();
    const first = runCli({ SANDBOX_TOKEN: "cli-token", SANDBOX_ROOT: root }, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const [, url] = await first.ready;
    expect(await (await execute(url, "cli-token")).json()).toMatchObject({ exitCode: 0, stdout: "ran\n" });

    const second = runCli({ SANDBOX_TOKEN: "cli-token", SANDBOX_ROOT: root }, /listening on/);
    // Were it to start, its stop would unmount the first one's disks and remove the shared cgroup: do that, so the damage shows.
    const startedToo = await Promise.race([second.ready.then(() => true), second.exited.then(() => false)]);
    if (startedToo) second.child.kill("SIGTERM");
    const code = await second.exited;
    expect(await (await execute(url, "cli-token")).json()).toMatchObject({ exitCode: 0, stdout: "ran\n" });
    expect(code).toBe(1);
    const lines = second.out().stderr.trim().split("\n");
    expect(lines).toEqual([`another sandbox executor (pid ${first.child.pid}) is already using SANDBOX_ROOT ${root}: stop it first, or give this one another SANDBOX_ROOT`]);
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    // SIGKILL leaves the lock behind; its pid runs no more, so the next start takes it over.
    const killed = runCli({ SANDBOX_TOKEN: "cli-token", SANDBOX_ROOT: root }, /listening on/);
    await killed.ready;
    killed.child.kill("SIGKILL");
    await killed.exited;
    expect(readFileSync(join(root, "executor.pid"), "utf8").trim()).toBe(String(killed.child.pid));
    const next = runCli({ SANDBOX_TOKEN: "cli-token", SANDBOX_ROOT: root }, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const [, nextUrl] = await next.ready;
    expect(await (await execute(nextUrl, "cli-token")).json()).toMatchObject({ exitCode: 0, stdout: "ran\n" });
    next.child.kill("SIGTERM");
    expect(await next.exited).toBe(0);
    expect(existsSync(join(root, "executor.pid"))).toBe(false);
  }, 60_000);

  test("SANDBOX_TOKEN=none-i-know starts an open executor, with a warning", async () => {
    const cli = runCli({ SANDBOX_TOKEN: "none-i-know" }, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const [, url] = await cli.ready;
    expect(cli.out().stderr).toMatch(/WARNING: no token \(SANDBOX_TOKEN=none-i-know\)/);
    expect(await (await execute(url)).json()).toMatchObject({ exitCode: 0, stdout: "ran\n" });
    cli.child.kill("SIGTERM");
    expect(await cli.exited).toBe(0);
  });
});
