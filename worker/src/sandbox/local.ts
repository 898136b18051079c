import { sandboxName } from "@duet/shared";
import { SandboxError, type RawExecResult, type SandboxExecutor } from "./types.ts";

/** Extra time the HTTP call gets beyond the command's own deadline, for the executor to report a timeout. */
const HTTP_GRACE_MS = 5_000;

/**
 * The local executor (sandbox/ in this repo) over HTTP, speaking the container
 * control API's shape: POST /api/execute and DELETE /api/sessions/:id.
 */
export class LocalExecutor implements SandboxExecutor {
  private readonly base: string;

  constructor(baseUrl: string, private readonly token?: string) {
    this.base = baseUrl.replace(/\/+$/, "");
  }

  private headers(): Record<string, string> {
    return { "content-type": "application/json", ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) };
  }

  async exec(roomId: string, cmd: string, timeoutMs: number, stop?: AbortSignal): Promise<RawExecResult> {
    const started = Date.now();
    const timeout = AbortSignal.timeout(timeoutMs + HTTP_GRACE_MS);
    let res: Response;
    let raw: string;
    try {
      // Hanging up is how a command is stopped: the executor kills its process tree when its caller goes.
      res = await fetch(`${this.base}/api/execute`, {
        method: "POST",
        headers: this.headers(),
        body: JSON.stringify({ command: cmd, sessionId: sandboxName(roomId), timeoutMs }),
        signal: stop ? AbortSignal.any([timeout, stop]) : timeout,
      });
      raw = await res.text();
    } catch (err) {
      if (stop?.aborted) throw stop.reason;
      const name = (err as Error).name;
      if (name === "TimeoutError") throw new SandboxError(`the sandbox did not answer within ${Math.round((timeoutMs + HTTP_GRACE_MS) / 1000)} s`);
      throw new SandboxError("the sandbox executor cannot be reached");
    }
    if (!res.ok) throw new SandboxError(`the sandbox executor answered HTTP ${res.status}`);
    let body: { exitCode?: unknown; stdout?: unknown; stderr?: unknown; duration?: unknown; truncated?: unknown };
    try {
      body = JSON.parse(raw);
    } catch {
      throw new SandboxError("the sandbox executor answered with something that is not JSON");
    }
    if (typeof body.exitCode !== "number") throw new SandboxError("the sandbox executor's answer has no exit code");
    return {
      exitCode: body.exitCode,
      stdout: typeof body.stdout === "string" ? body.stdout : "",
      stderr: typeof body.stderr === "string" ? body.stderr : "",
      durationMs: typeof body.duration === "number" ? body.duration : Date.now() - started,
      truncated: body.truncated === true,
    };
  }

  async destroy(roomId: string): Promise<void> {
    let res: Response;
    try {
      res = await fetch(`${this.base}/api/sessions/${encodeURIComponent(sandboxName(roomId))}`, {
        method: "DELETE",
        headers: this.headers(),
        signal: AbortSignal.timeout(15_000),
      });
    } catch {
      throw new SandboxError("the sandbox executor cannot be reached");
    }
    await res.body?.cancel();
    if (!res.ok && res.status !== 404) throw new SandboxError(`the sandbox executor answered HTTP ${res.status}`);
  }
}
