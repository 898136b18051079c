import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { inspectorsAnswering, listeningPorts } from "../test/helpers/dev-processes.ts";
import { asOtherUser, canActAsOtherUser } from "../test/helpers/other-user.ts";
import { quietPort } from "../test/helpers/ports.ts";
import { WORKER_SETTING_VARS } from "@duet/shared";
import { REPO_ROOT } from "./dev-env.ts";
import { WorkerConfigError, workerOptions } from "./dev-worker.ts";

describe("workerOptions", () => {
  it("uses its own address, port and state directory, with no inspector, when none is given", () => {
    const options = workerOptions([], { DUET_WORKER_PORT: "8899" });
    expect(options.dev?.server).toEqual({ hostname: "127.0.0.1", port: 8899 });
    expect(options.dev?.persist).toMatch(/state$/);
    expect(options.dev?.inspector).toBe(false);
  });

  it("lets --port, --ip and --persist-to replace its own, in both spellings, after pnpm's --, and adds --var", () => {
    const options = workerOptions(["--", "--port", "9000", "--ip=0.0.0.0", "--persist-to", "/tmp/state", "--var", "A:b:c"], {});
    expect(options.dev?.server).toEqual({ hostname: "0.0.0.0", port: 9000 });
    expect(options.dev?.persist).toBe("/tmp/state");
    expect(options.bindings).toEqual({ A: { type: "plain_text", value: "b:c" } });
  });

  it("binds a --var that holds a key, token, secret or password as a secret, so wrangler never prints its value", () => {
    const options = workerOptions(["--var", "GITHUB_APP_PRIVATE_KEY:pem", "--var", "SLACK_BOT_TOKEN:xoxb", "--var", "MODEL_URL:http://m"], {});
    expect(options.bindings).toEqual({
      GITHUB_APP_PRIVATE_KEY: { type: "secret_text", value: "pem" },
      SLACK_BOT_TOKEN: { type: "secret_text", value: "xoxb" },
      MODEL_URL: { type: "plain_text", value: "http://m" },
    });
  });

  it("refuses what it cannot pass on with one line that says what is accepted", () => {
    expect(() => workerOptions(["--inspector-port", "9229"], {})).toThrow(
      new WorkerConfigError("unknown argument --inspector-port (accepted: --ip ADDRESS, --port PORT, --persist-to DIR, --var NAME:VALUE)"),
    );
    expect(() => workerOptions(["--port", "eighty"], {})).toThrow("--port must be a port number from 1 to 65535, not eighty");
    expect(() => workerOptions(["--var", "novalue"], {})).toThrow("--var takes NAME:VALUE, not novalue");
  });

  it("refuses a budget that is not a number, or a model list with an unknown provider, from the environment or --var, with the Worker's one line", () => {
    expect(() => workerOptions([], { DUET_ROOM_DAILY_TOKENS: "lots" })).toThrow(new WorkerConfigError("DUET_ROOM_DAILY_TOKENS must be an integer from 1 to 1000000000000"));
    expect(() => workerOptions(["--var", "DUET_USER_DAILY_TOKENS:12k"], {})).toThrow(/^DUET_USER_DAILY_TOKENS must be an integer/);
    expect(() => workerOptions([], { DUET_MODELS: "fast=anthropic:claude" })).toThrow('DUET_MODELS has "fast=anthropic:claude": "anthropic" is not a provider (one of workers-ai, openai)');
  });

  it("hands every Worker setting the environment sets to the Worker, e.g. a schedule's shortest interval and the file limit", () => {
    const env: Record<(typeof WORKER_SETTING_VARS)[number], string> = {
      DUET_API_TOKEN: "api-token-from-env",
      DUET_API_TOKEN_PREVIOUS: "old-api-token",
      MODEL_PROVIDER: "openai",
      MODEL: "qwen2.5:7b",
      DUET_TOOLS_ALLOW_PRIVATE: "1",
      DUET_TOOL_TIMEOUT_MS: "20000",
      DUET_PUBLIC_URL: "https://duet.example.workers.dev",
      OPENAI_BASE_URL: "http://127.0.0.1:11434/v1",
      OPENAI_API_KEY: "sk-local",
      MODEL_TIMEOUT_MS: "45000",
      MODEL_MAX_TOKENS: "2048",
      MODEL_TEMPERATURE: "0.7",
      SANDBOX_PROVIDER: "local",
      SANDBOX_URL: "http://127.0.0.1:9999",
      SANDBOX_TOKEN: "sandbox-token-from-env",
      COMMAND_TIMEOUT_MS: "12000",
      MAX_RUNS_PER_REPLY: "3",
      SANDBOX_PREWARM: "off",
      SANDBOX_NETWORK: "registries",
      SANDBOX_ALLOWED_HOSTS: "git.corp.example",
      SANDBOX_DENIED_HOSTS: "*.ads.example",
      DUET_RUN_POLICY: "approve",
      DUET_APPROVAL_TTL_MS: "60000",
      DUET_FILE_MAX_BYTES: "1048576",
      SANDBOX_WORKSPACE_MAX_BYTES: "2097152",
      DUET_ROOM_HISTORY_MAX_BYTES: "4194304",
      DUET_RECALL_TOKENS: "400",
      DUET_SUMMARY_TOKENS: "1500",
      DUET_DELIVERY_GRACE_MS: "5000",
      DUET_DELIVERY_LEASE_MS: "4000",
      DUET_SCHEDULE_MIN_INTERVAL_S: "60",
      DUET_SCHEDULES_PER_ROOM: "4",
      DUET_MODELS: "fast=workers-ai:@cf/x",
      DUET_ROOM_DAILY_TOKENS: "5000",
      DUET_ROOM_DAILY_USD: "2.5",
      DUET_USER_DAILY_USD: "0.75",
      DUET_USER_DAILY_TOKENS: "700",
      GITHUB_APP_ID: "12345",
      GITHUB_APP_PRIVATE_KEY: "-----BEGIN PRIVATE KEY-----\\nMIIB\\n-----END PRIVATE KEY-----",
      GITHUB_APP_SLUG: "duet-dev",
      GITHUB_WEBHOOK_SECRET: "webhook-secret",
      GITHUB_API_URL: "http://127.0.0.1:9998",
      DUET_GIT_REMOTE_URL: "https://git.corp.example/{repo}.git",
      DUET_GIT_REMOTE_TOKEN: "git-remote-token",
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
      OTEL_EXPORTER_OTLP_HEADERS: "x-honeycomb-team=abc",
      OTEL_BSP_SCHEDULE_DELAY: "0",
    };
    // A setting the Worker gains needs a value here, so this test covers it too.
    expect(Object.keys(env).sort()).toEqual([...WORKER_SETTING_VARS].sort());
    // The tokens are the ones `pnpm dev` keeps (the process's own environment first), not read from `env`.
    const { DUET_API_TOKEN: _api, SANDBOX_TOKEN: _sandbox, ...settings } = env;
    const file = readFileSync(workerOptions([], env).envFiles!.at(-1)!, "utf8");
    for (const [name, value] of Object.entries(settings)) expect(file).toContain(`\n${name}='${value}'\n`);
    expect(file).toMatch(/^DUET_API_TOKEN='.+'$/m);
    expect(file).toMatch(/^SANDBOX_TOKEN='.+'$/m);
  });

  it("refuses any malformed Worker setting from the environment with the Worker's one line", () => {
    expect(() => workerOptions([], { DUET_SCHEDULE_MIN_INTERVAL_S: "soon" })).toThrow(new WorkerConfigError("DUET_SCHEDULE_MIN_INTERVAL_S must be an integer from 1 to 604800"));
    expect(() => workerOptions([], { SANDBOX_PREWARM: "maybe" })).toThrow(new WorkerConfigError("SANDBOX_PREWARM must be on or off"));
    expect(() => workerOptions([], { OPENAI_BASE_URL: "my model server" })).toThrow(new WorkerConfigError("OPENAI_BASE_URL must be a URL"));
  });

  it("every Worker setting is in a settings table of the docs", () => {
    const readme = ["configuration.md", "running.md"].map((f) => readFileSync(join(REPO_ROOT, "docs", f), "utf8")).join("\n");
    const rows = readme.split("\n").filter((l) => l.startsWith("| `"));
    const named = new Set(rows.flatMap((row) => [...row.split(" | ")[0]!.matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]!)));
    expect(WORKER_SETTING_VARS.filter((name) => !named.has(name))).toEqual([]);
  });

  it("hands the models and budgets from the environment to the Worker", () => {
    const options = workerOptions([], { DUET_MODELS: "fast=workers-ai:@cf/x,strong=openai:gpt-4o", DUET_ROOM_DAILY_TOKENS: "5000" });
    const file = readFileSync(options.envFiles!.at(-1)!, "utf8");
    expect(file).toContain("DUET_MODELS='fast=workers-ai:@cf/x,strong=openai:gpt-4o'\n");
    expect(file).toContain("DUET_ROOM_DAILY_TOKENS='5000'\n");
  });
});

describe("pnpm dev:worker with a malformed budget", () => {
  it("stops before anything starts, with one line naming the setting", async () => {
    const home = join(tmpdir(), `duet-never-created-${process.pid}`);
    const child = spawn(join(REPO_ROOT, "node_modules", ".bin", "tsx"), ["scripts/dev-worker.ts"], {
      cwd: REPO_ROOT,
      env: { ...process.env, DUET_HOME: home, DUET_ROOM_DAILY_TOKENS: "lots" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout!.on("data", (d: Buffer) => (output += d));
    child.stderr!.on("data", (d: Buffer) => (output += d));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(2);
    expect(output.trim()).toBe("pnpm dev:worker: DUET_ROOM_DAILY_TOKENS must be an integer from 1 to 1000000000000");
    expect(existsSync(home)).toBe(false);
  });
});

/** Pids in process group `pgid` that are still running (not zombies). */
function groupMembers(pgid: number): number[] {
  const out = execFileSync("ps", ["-eo", "pid=,pgid=,stat="], { encoding: "utf8" });
  return out
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => Number(f[1]) === pgid && !f[2]?.startsWith("Z"))
    .map((f) => Number(f[0]));
}

describe("pnpm dev:worker --port P", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("answers /health on P with no inspector listening, keeps state where --persist-to says, then stops with every process it started", async () => {
    const home = mkdtempSync(join(tmpdir(), "duet-dev-worker-home-"));
    const state = mkdtempSync(join(tmpdir(), "duet-dev-worker-state-"));
    dirs.push(home, state);
    const port = await quietPort();
    const token = "dev-worker-test-token";
    // pnpm 12 hands the script a literal `--` before the arguments (`pnpm dev:worker -- --port P` and `pnpm dev:worker --port P` alike).
    const child = spawn(join(REPO_ROOT, "node_modules", ".bin", "tsx"), ["scripts/dev-worker.ts", "--", "--port", String(port), "--persist-to", state], {
      cwd: REPO_ROOT,
      env: { ...process.env, DUET_HOME: home, DUET_API_TOKEN: token, DUET_WORKER_PORT: "1" },
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group, so the test can stop wrangler and workerd with it and check none is left.
      detached: true,
    });
    let output = "";
    child.stdout!.on("data", (d: Buffer) => (output += d));
    child.stderr!.on("data", (d: Buffer) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const pgid = child.pid!;
    try {
      let health: string | undefined;
      for (let tries = 0; tries < 240 && health === undefined && child.exitCode === null; tries++) {
        health = await fetch(`http://127.0.0.1:${port}/health`).then((r) => (r.ok ? r.text() : undefined), () => undefined);
        if (health === undefined) await new Promise((r) => setTimeout(r, 250));
      }
      expect(health, output).toBe("ok");
      // A room's storage is created under --persist-to, not under the script's own .duet/state.
      const res = await fetch(`http://127.0.0.1:${port}/api/rooms/cli-dev-worker/messages`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status, output).toBe(200);
      expect(readdirSync(state).length).toBeGreaterThan(0);
      expect(existsSync(join(home, "state"))).toBe(false);
      // No local user can attach a debugger to the Worker and read its tokens.
      expect(listeningPorts(groupMembers(pgid)).map((l) => l.port)).toContain(port);
      expect(await inspectorsAnswering(groupMembers(pgid))).toEqual([]);
      // wrangler's own routes on the Worker's port: none lists rooms, runs SQL or reaches a binding without a secret.
      const cdnCgi = async (path: string, init?: RequestInit) => {
        const r = await fetch(`http://127.0.0.1:${port}${path}`, init);
        return `${path} ${r.status} ${(await r.text()).slice(0, 40)}`;
      };
      const namespace = "/cdn-cgi/explorer/api/workers/durable_objects/namespaces";
      expect(await cdnCgi("/cdn-cgi/explorer")).toMatch(/ 404 /);
      expect(await cdnCgi(namespace)).toMatch(/ 404 /);
      expect(await cdnCgi(`${namespace}/duet-DuetAgent/objects`)).toMatch(/ 404 /);
      const sql = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ sql: "SELECT * FROM duet_ledger" }) };
      expect(await cdnCgi(`${namespace}/duet-DuetAgent/objects/x/query`, sql)).toMatch(/ 404 /);
      for (const path of ["/cdn-cgi/", "/cdn-cgi/mf/reload", "/cdn-cgi/trace", "/cdn-cgi/handler/unknown"]) expect(await cdnCgi(path)).toMatch(/ 404 /);
      // The bindings proxy needs miniflare's own secret; the triggers reach handlers that do nothing.
      expect(await cdnCgi("/cdn-cgi/platform-proxy", { headers: { "MF-Op": "GET", "MF-Op-Target": "1" } })).toMatch(/ 401 /);
      expect(await cdnCgi("/cdn-cgi/handler/scheduled")).toMatch(/ 200 /);
      expect(await cdnCgi("/cdn-cgi/handler/email")).toMatch(/ 400 /);
      // miniflare's loopback server (workerd's way back into Node, on a port of its own) takes
      // log lines and temporary files from whoever connects: another local user reaches none of it.
      if (canActAsOtherUser) {
        const planted = join(tmpdir(), `duet-planted-${process.pid}`);
        const listeners = listeningPorts(groupMembers(pgid)).filter((l) => l.port !== port);
        expect(listeners.length).toBeGreaterThan(0);
        for (const { port: p } of listeners) {
          const post = (path: string, body: string) => asOtherUser(["curl", "-s", "-m", "5", "-X", "POST", "-H", "MF-Log-Level: 2", "--data-binary", body, `http://127.0.0.1:${p}${path}`]);
          post("/core/log", `planted-log-line-${p}`);
          post(`/core/store-temp-file?extension=x/${"../".repeat(12)}${planted.slice(1)}`, "planted");
        }
        await new Promise((r) => setTimeout(r, 500));
        expect(output).not.toContain("planted-log-line");
        expect(existsSync(planted)).toBe(false);
      }
    } finally {
      if (child.exitCode === null) process.kill(-pgid, "SIGINT");
      await exited;
      // wrangler takes workerd down with it; anything left in the group gets a SIGKILL and fails the test.
      const left = groupMembers(pgid);
      for (const pid of left) process.kill(pid, "SIGKILL");
      expect(left).toEqual([]);
    }
  }, 120_000);
});
