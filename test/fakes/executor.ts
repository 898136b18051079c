import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listen, readBody, sendJson, sleep, type Listening } from "./http.ts";

/**
 * A fake of the sandbox's control API (`POST /api/execute`, `DELETE /api/sessions/:id`)
 * for Worker tests. It runs commands with /bin/sh in a temp directory per session,
 * without isolation: it is a test double, not the product's executor (see sandbox/).
 *
 * `__EXECUTOR_FAIL__` as a command answers 500, to test executor errors.
 * `instant: true` answers every command at once (exit 0, no output) without
 * starting a shell: the "instant executor" benchmarks measure Duet against.
 * `setColdStart(ms)` delays the first command of each session (benchmarks).
 * A caller that hangs up mid-command kills it, as the real executor does; the
 * command is then listed in `killed`.
 */
export interface ExecCall {
  /** The span the Worker ran it under (W3C traceparent), when it sent one. */
  traceparent?: string;
  command: string;
  sessionId: string;
  timeoutMs?: number;
  at: number;
}

export interface FakeExecutor extends Listening {
  calls: ExecCall[];
  deleted: string[];
  killed: string[];
  setColdStart(ms: number): void;
  reset(): void;
}

export async function startFakeExecutor(port = 0, opts: { instant?: boolean } = {}): Promise<FakeExecutor> {
  const root = mkdtempSync(join(tmpdir(), "duet-fake-exec-"));
  const calls: ExecCall[] = [];
  const deleted: string[] = [];
  const killed: string[] = [];
  const warm = new Map<string, Promise<void>>();
  const failedDeletes = new Set<string>();
  let coldStartMs = 0;

  const listening = await listen(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (req.method === "GET" && url.pathname === "/api/ping") return sendJson(res, 200, { ok: true });
    if (req.method === "GET" && url.pathname === "/_calls") return sendJson(res, 200, { calls, deleted, killed });
    const del = /^\/api\/sessions\/([^/]+)$/.exec(url.pathname);
    if (req.method === "DELETE" && del) {
      const id = decodeURIComponent(del[1]);
      // Scripted: a session whose name says so fails its first destroy, as a sandbox host might.
      if (id.includes("FAILDELETE") && !failedDeletes.has(id)) {
        failedDeletes.add(id);
        return sendJson(res, 500, { error: "scripted destroy failure" });
      }
      deleted.push(id);
      warm.delete(id);
      rmSync(join(root, id), { recursive: true, force: true });
      return sendJson(res, 200, { success: true });
    }
    if (req.method !== "POST" || url.pathname !== "/api/execute") return sendJson(res, 404, { error: "not found" });
    // Watched from the start: a caller that hangs up while its command waits (its body read, a cold start) is seen too.
    const hangup = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) hangup.abort();
    });
    const body = JSON.parse(await readBody(req)) as { command: string; sessionId: string; timeoutMs?: number };
    const traceparent = req.headers.traceparent;
    calls.push({ ...body, at: Date.now(), ...(typeof traceparent === "string" ? { traceparent } : {}) });
    if (!warm.has(body.sessionId)) warm.set(body.sessionId, sleep(coldStartMs).then(() => undefined));
    await warm.get(body.sessionId);
    if (body.command === "__EXECUTOR_FAIL__") return sendJson(res, 500, { error: "scripted executor failure" });
    if (opts.instant) return sendJson(res, 200, { success: true, exitCode: 0, stdout: "", stderr: "", duration: 0 });
    const cwd = join(root, body.sessionId);
    mkdirSync(cwd, { recursive: true });
    const started = Date.now();
    const result = await run(body.command, cwd, body.timeoutMs ?? 30_000, hangup.signal);
    if (hangup.signal.aborted) {
      killed.push(body.command);
      return;
    }
    sendJson(res, 200, { success: result.exitCode === 0, ...result, duration: Date.now() - started });
  }, port);

  return {
    ...listening,
    calls,
    deleted,
    killed,
    setColdStart: (ms) => {
      coldStartMs = ms;
    },
    reset: () => {
      calls.length = 0;
      deleted.length = 0;
      killed.length = 0;
      warm.clear();
    },
    close: async () => {
      await listening.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function run(command: string, cwd: string, timeoutMs: number, signal: AbortSignal): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // Its own process group, so a kill reaches what the shell started (`sleep`) too.
    const child = spawn("/bin/sh", ["-c", command], { cwd, detached: true, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd } });
    const kill = () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // Already gone.
      }
    };
    signal.addEventListener("abort", kill, { once: true });
    // The caller went before the command started: it starts killed.
    if (signal.aborted) kill();
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      if (stdout.length < 4 * 1024 * 1024) stdout += d;
    });
    child.stderr.on("data", (d) => {
      if (stderr.length < 4 * 1024 * 1024) stderr += d;
    });
    const timer = setTimeout(kill, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", kill);
      resolve({ exitCode: code ?? 137, stdout, stderr });
    });
  });
}
