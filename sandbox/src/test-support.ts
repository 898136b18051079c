import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExecutorConfig } from "./config.ts";
import { startExecutor, type RunningExecutor } from "./index.ts";

/** Starts the real executor (bubblewrap) on port 0 with a throw-away root, and a tiny client for it. */

export interface ExecAnswer {
  success: boolean;
  exitCode: number;
  stdout: string;
  stderr: string;
  duration: number;
  truncated: boolean;
  timedOut: boolean;
}

export interface TestExecutor extends RunningExecutor {
  token: string;
  exec(sessionId: string, command: string, timeoutMs?: number, person?: string): Promise<ExecAnswer>;
  /** A command whose caller will hang up: `hangUp()` drops the request, and `ended` resolves with the fetch's error name. */
  abandonable(sessionId: string, command: string, timeoutMs: number): { hangUp(): void; ended: Promise<string> };
  request(method: string, path: string, init?: { body?: string; token?: string | null }): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

export async function startTestExecutor(overrides: Partial<ExecutorConfig> = {}): Promise<TestExecutor> {
  const root = mkdtempSync(join(tmpdir(), "duet-sandbox-test-"));
  const token = "test-token-" + Math.random().toString(36).slice(2);
  const running = await startExecutor({ port: 0, host: "127.0.0.1", root, token, isolation: "bwrap", ...overrides }, () => {});

  const request: TestExecutor["request"] = async (method, path, init = {}) => {
    const auth = init.token === undefined ? token : init.token;
    const res = await fetch(running.url + path, {
      method,
      headers: { "content-type": "application/json", ...(auth !== null ? { authorization: `Bearer ${auth}` } : {}) },
      body: init.body,
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Left as text: the test will say what came back.
    }
    return { status: res.status, body };
  };

  return {
    ...running,
    token,
    request,
    exec: async (sessionId, command, timeoutMs, person) => {
      const r = await request("POST", "/api/execute", { body: JSON.stringify({ command, sessionId, timeoutMs, person }) });
      if (r.status !== 200) throw new Error(`execute answered ${r.status}: ${JSON.stringify(r.body)}`);
      return r.body as ExecAnswer;
    },
    abandonable: (sessionId, command, timeoutMs) => {
      const abort = new AbortController();
      const ended = fetch(`${running.url}/api/execute`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: JSON.stringify({ command, sessionId, timeoutMs }),
        signal: abort.signal,
      }).then(
        () => "answered",
        (e: Error) => e.name,
      );
      return { hangUp: () => abort.abort(), ended };
    },
    stop: async () => {
      await running.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * Resolves once `name` exists in `dir` (a command's marker that it has started).
 * Checked every 20 ms rather than watched: the room's filesystem may be mounted on
 * `dir` after a watch began, and a watch on the folder underneath never fires.
 */
export async function waitForFile(dir: string, name: string): Promise<void> {
  const { existsSync } = await import("node:fs");
  const { join } = await import("node:path");
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      if (existsSync(join(dir, name))) {
        clearInterval(timer);
        resolve();
      }
    }, 20);
  });
}
