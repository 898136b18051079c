import { sandboxName, TRACEPARENT_HEADER, workspaceOfRoom } from "@duet/shared";
import { sleep } from "../sleep.ts";
import { localCheckout } from "./local-checkout.ts";
import { localPush } from "./local-push.ts";
import { SandboxError, type CheckoutAsk, type CheckoutDone, type PushAsk, type RawExecResult, type SandboxExecutor } from "./types.ts";

/** Extra time the HTTP call gets beyond the command's own deadline, for the executor to report a timeout. */
const HTTP_GRACE_MS = 5_000;
/** Up to this much is added to a busy executor's Retry-After, so waiting rooms come back spread out. */
const RETRY_SPREAD_MS = 250;
/** A Retry-After longer than this is read as this: the command's own deadline bounds the waiting anyway. */
const RETRY_AFTER_MAX_MS = 10_000;

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

  /**
   * Runs `cmd` in the room's sandbox. An executor whose line is full answers 503
   * with Retry-After: the command is asked again after that wait (spread a little,
   * so a crowd of rooms does not come back at once), for as long in all as the
   * command itself may run.
   */
  async exec(roomId: string, cmd: string, timeoutMs: number, stop?: AbortSignal, traceparent?: string, person?: string): Promise<RawExecResult> {
    const started = Date.now();
    for (;;) {
      const answer = await this.post(roomId, cmd, timeoutMs, stop, traceparent, person);
      if ("result" in answer) return answer.result;
      const waited = Date.now() - started;
      if (waited + answer.busyForMs > timeoutMs) {
        throw new SandboxError(`the sandbox executor stayed busy for ${Math.max(1, Math.round(waited / 1000))} s (too many commands waiting); try again shortly`);
      }
      await sleep(answer.busyForMs + Math.random() * RETRY_SPREAD_MS, stop);
    }
  }

  /** One request: the command's result, or how long a busy executor asked to wait. */
  private async post(
    roomId: string,
    cmd: string,
    timeoutMs: number,
    stop?: AbortSignal,
    traceparent?: string,
    person?: string,
  ): Promise<{ busyForMs: number } | { result: RawExecResult }> {
    const sent = Date.now();
    const timeout = AbortSignal.timeout(timeoutMs + HTTP_GRACE_MS);
    let res: Response;
    let raw: string;
    try {
      // Hanging up is how a command is stopped: the executor kills its process tree when its caller goes.
      res = await fetch(`${this.base}/api/execute`, {
        method: "POST",
        headers: { ...this.headers(), ...(traceparent ? { [TRACEPARENT_HEADER]: traceparent } : {}) },
        body: JSON.stringify({ command: cmd, sessionId: sandboxName(roomId), timeoutMs, person: person && executorPerson(roomId, person) }),
        signal: stop ? AbortSignal.any([timeout, stop]) : timeout,
      });
      raw = await res.text();
    } catch (err) {
      if (stop?.aborted) throw stop.reason;
      const name = (err as Error).name;
      if (name === "TimeoutError") throw new SandboxError(`the sandbox did not answer within ${Math.round((timeoutMs + HTTP_GRACE_MS) / 1000)} s`);
      throw new SandboxError("the sandbox executor cannot be reached");
    }
    const busyForMs = res.status === 503 ? retryAfterMs(res.headers.get("retry-after")) : null;
    if (busyForMs !== null) return { busyForMs };
    if (!res.ok) throw new SandboxError(`the sandbox executor answered HTTP ${res.status}`);
    let body: { exitCode?: unknown; stdout?: unknown; stderr?: unknown; duration?: unknown; truncated?: unknown };
    try {
      body = JSON.parse(raw);
    } catch {
      throw new SandboxError("the sandbox executor answered with something that is not JSON");
    }
    if (typeof body.exitCode !== "number") throw new SandboxError("the sandbox executor's answer has no exit code");
    return {
      result: {
        exitCode: body.exitCode,
        stdout: typeof body.stdout === "string" ? body.stdout : "",
        stderr: typeof body.stderr === "string" ? body.stderr : "",
        durationMs: typeof body.duration === "number" ? body.duration : Date.now() - sent,
        truncated: body.truncated === true,
      },
    };
  }

  checkout(roomId: string, ask: CheckoutAsk, stop?: AbortSignal): Promise<CheckoutDone> {
    return localCheckout(this.base, this.headers(), roomId, ask, stop);
  }

  push(roomId: string, ask: PushAsk): Promise<{ sha: string }> {
    return localPush(this.base, this.headers(), roomId, ask);
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

/** A 503's Retry-After (seconds) in ms, or null when there is none: a 503 without it is a failure, not a full line. */
function retryAfterMs(header: string | null): number | null {
  if (header === null || !/^\d+$/.test(header.trim())) return null;
  return Math.min(Number(header.trim()) * 1000, RETRY_AFTER_MAX_MS);
}

/** The person as the executor takes it: the room's workspace and the user id, in printable ASCII of at most 200 characters. */
export function executorPerson(roomId: string, userId: string): string {
  return encodeURIComponent(`${workspaceOfRoom(roomId)}:${userId}`).slice(0, 200);
}
