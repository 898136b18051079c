import { DEFAULT_CLIENT_TIMEOUT_MS } from "./limits.ts";
import { DuetError, type ErrorCode, ERROR_CODES } from "./errors.ts";
import { errorBodySchema, stopResponseSchema, type StopResponse, type TurnStreamEvent } from "./schemas.ts";
import { streamMessage } from "./client-stream.ts";
import { getFile, listFiles, putFile, type FilesTransport } from "./files-client.ts";
import type { FileList, FileWritten } from "./schemas.ts";
import {
  auditResponseSchema,
  decisionResponseSchema,
  policyResponseSchema,
  type AuditResponse,
  type DecisionRequest,
  type DecisionResponse,
  type PolicyRequest,
  type PolicyResponse,
} from "./schemas.ts";
import {
  cleanupResponseSchema,
  execResponseSchema,
  infoResponseSchema,
  messageResponseSchema,
  messagesResponseSchema,
  type CleanupResponse,
  type ExecRequest,
  type ExecResponse,
  type InfoResponse,
  type MessageRequest,
  type MessageResponse,
  type MessagesResponse,
} from "./schemas.ts";
import type { z } from "zod";

export interface WorkerClientOptions {
  /** Base URL of the Worker, e.g. http://127.0.0.1:8787 */
  baseUrl: string;
  token: string;
  timeoutMs?: number;
  /** Injected for tests; defaults to the global fetch (undici keeps connections alive). */
  fetch?: typeof fetch;
  /**
   * Extra attempts when the Worker is unreachable or answers 500, with
   * exponential backoff (250 ms doubling, at most 4 s apart). Only requests
   * that are safe to repeat are retried: reads, deletes, messages carrying an
   * idempotency key, and anything refused before it reached the Worker or
   * refused by a full room (429, after its Retry-After).
   */
  retries?: number;
  /** Injected for tests: how to wait between attempts. */
  sleep?: (ms: number) => Promise<void>;
}

const RETRY_BASE_MS = 250;
const RETRY_MAX_MS = 4_000;

/**
 * The typed Worker client both bots and the CLI use. Every failure comes out as
 * a DuetError, so callers render one vocabulary.
 */
export class WorkerClient {
  private readonly base: string;
  private readonly token: string;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;
  private readonly retries: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(opts: WorkerClientOptions) {
    this.base = opts.baseUrl.replace(/\/+$/, "");
    this.token = opts.token;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_CLIENT_TIMEOUT_MS;
    this.fetchImpl = opts.fetch ?? fetch;
    this.retries = opts.retries ?? 5;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  message(roomId: string, body: MessageRequest): Promise<MessageResponse> {
    return this.call("POST", `/api/rooms/${encodeURIComponent(roomId)}/message`, messageResponseSchema, body, Boolean(body.idempotencyKey));
  }

  /**
   * The same turn as `message`, live: `onEvent` gets the model's text as it is
   * written and each command as it starts and ends; resolves with the `done`
   * body (`stopped: true` when someone stopped the turn). `signal` hangs up
   * without stopping the turn; a lost stream is re-joined when the request has
   * an idempotency key. The Worker's silence limit is the client's timeout.
   */
  messageStream(roomId: string, body: MessageRequest, onEvent: (e: TurnStreamEvent) => void, opts: { signal?: AbortSignal } = {}): Promise<MessageResponse> {
    const transport = { base: this.base, token: this.token, fetch: this.fetchImpl, idleTimeoutMs: this.timeoutMs, retries: this.retries, sleep: this.sleep, errorOf: errorFromStatus };
    return streamMessage(transport, `/api/rooms/${encodeURIComponent(roomId)}/message`, body, onEvent, opts.signal);
  }

  /** Stops the room's running turn, whoever started it; `stopped` is false when nothing was running. */
  stop(roomId: string, userId?: string): Promise<StopResponse> {
    return this.call("POST", `/api/rooms/${encodeURIComponent(roomId)}/stop`, stopResponseSchema, userId ? { userId } : {}, true);
  }

  exec(roomId: string, body: ExecRequest): Promise<ExecResponse> {
    return this.call("POST", `/api/rooms/${encodeURIComponent(roomId)}/sandbox/exec`, execResponseSchema, body, Boolean(body.idempotencyKey));
  }

  history(roomId: string): Promise<MessagesResponse> {
    return this.call("GET", `/api/rooms/${encodeURIComponent(roomId)}/messages`, messagesResponseSchema, undefined, true);
  }

  /**
   * Resolves for 200 and for 207 (cleaned with part errors); the caller sees `errors`.
   * `timeoutMs` overrides the client's: a workspace room's clean-up visits every room in it.
   * `userId` marks a person's reset: the emptied audit then starts with who reset it
   * (a clean-up nobody asked for, such as an archived channel, leaves nothing).
   */
  cleanup(roomId: string, opts: { timeoutMs?: number; userId?: string } = {}): Promise<CleanupResponse> {
    const by = opts.userId ? `?userId=${encodeURIComponent(opts.userId)}` : "";
    return this.call("DELETE", `${roomPath(roomId)}${by}`, cleanupResponseSchema, undefined, true, opts.timeoutMs);
  }

  /** The room's run policy: `auto` (commands run at once) or `approve` (each waits for a person). */
  policy(roomId: string): Promise<PolicyResponse> {
    return this.call("GET", `${roomPath(roomId)}/policy`, policyResponseSchema, undefined, true);
  }

  /** Setting the same policy twice is harmless, so a failed attempt may be repeated. */
  setPolicy(roomId: string, body: PolicyRequest): Promise<PolicyResponse> {
    return this.call("PUT", `${roomPath(roomId)}/policy`, policyResponseSchema, body, true);
  }

  /**
   * Runs or skips a proposed command. Throws DuetError `already_decided` (409),
   * `approval_expired` (410) or `not_found` (404); never repeated on its own,
   * since a repeat of a decision that went through would answer 409.
   */
  decide(roomId: string, approvalId: string, body: DecisionRequest): Promise<DecisionResponse> {
    return this.call("POST", `${roomPath(roomId)}/approvals/${encodeURIComponent(approvalId)}`, decisionResponseSchema, body, false);
  }

  /** The room's audit trail, oldest first (the last AUDIT_KEEP events). */
  audit(roomId: string): Promise<AuditResponse> {
    return this.call("GET", `${roomPath(roomId)}/audit`, auditResponseSchema, undefined, true);
  }

  /**
   * Streams a file into the room's workspace (`uploads/<name>` for a person's
   * upload: a taken name gets a number, and the next turn tells the model).
   * Never retried: a stream cannot be sent twice.
   */
  putFile(roomId: string, path: string, body: ReadableStream<Uint8Array> | Uint8Array, opts: { userId?: string; bytes?: number } = {}): Promise<FileWritten> {
    return putFile(this.files(), roomId, path, body, opts);
  }

  /** A workspace file as a stream, with its length and type. */
  getFile(roomId: string, path: string): Promise<{ body: ReadableStream<Uint8Array>; bytes: number; type: string }> {
    return getFile(this.files(), roomId, path);
  }

  listFiles(roomId: string, dir = ""): Promise<FileList> {
    return listFiles(this.files(), roomId, dir);
  }

  private files(): FilesTransport {
    return { base: this.base, token: this.token, fetch: this.fetchImpl, timeoutMs: this.timeoutMs, errorOf: errorFromStatus };
  }

  /** How the Worker is set up (the sandbox's provider and network), for help texts. */
  info(): Promise<InfoResponse> {
    return this.call("GET", "/api/info", infoResponseSchema, undefined, true);
  }

  async health(): Promise<boolean> {
    try {
      const res = await this.fetchImpl(`${this.base}/health`, { signal: AbortSignal.timeout(5_000) });
      await res.text();
      return res.ok;
    } catch {
      return false;
    }
  }

  private async call<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    body: unknown,
    repeatable: boolean,
    timeoutMs = this.timeoutMs,
  ): Promise<z.infer<S>> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(method, path, schema, body, timeoutMs);
      } catch (err) {
        const e = err as DuetError & { refused?: boolean };
        if (attempt >= this.retries) throw err;
        // A full room refused the turn before doing anything: always safe to ask again, when it says.
        if (e.code === "room_busy") {
          await this.sleep(Math.min(RETRY_MAX_MS * 2, e.retryAfterMs ?? RETRY_MAX_MS));
          continue;
        }
        const transient = e.code === "worker_unreachable" || (e.code === "internal" && e.status === 500);
        if (!transient || !(repeatable || e.refused)) throw err;
        await this.sleep(Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** attempt));
      }
    }
  }

  private async once<S extends z.ZodType>(method: string, path: string, schema: S, body: unknown, timeoutMs: number): Promise<z.infer<S>> {
    let res: Response;
    try {
      res = await this.fetchImpl(`${this.base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      const name = (err as Error)?.name;
      if (name === "TimeoutError" || name === "AbortError") {
        throw new DuetError("worker_timeout", `no answer from the Worker within ${Math.round(timeoutMs / 1000)} s`);
      }
      const unreachable = new DuetError("worker_unreachable", `cannot reach the Worker at ${this.base}`);
      // Refused before anything was sent: safe to retry even a request that runs a command.
      const cause = (err as { cause?: { code?: string } }).cause;
      throw Object.assign(unreachable, { refused: cause?.code === "ECONNREFUSED" });
    }
    let json: unknown;
    try {
      json = await res.json();
    } catch {
      if (!res.ok) throw errorFromStatus(res.status, res.headers, undefined);
      throw new DuetError("bad_response", `the Worker answered ${res.status} with a body that is not JSON`);
    }
    if (!res.ok && res.status !== 207) throw errorFromStatus(res.status, res.headers, json);
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new DuetError("bad_response", "the Worker's answer did not match the API");
    return parsed.data;
  }
}

const roomPath = (roomId: string) => `/api/rooms/${encodeURIComponent(roomId)}`;

function errorFromStatus(status: number, headers: Headers, json: unknown): DuetError {
  const body = errorBodySchema.safeParse(json);
  const retryAfterHeader = Number(headers.get("retry-after"));
  const retryAfterMs =
    (body.success ? body.data.retryAfterMs : undefined) ??
    (Number.isFinite(retryAfterHeader) && retryAfterHeader > 0 ? retryAfterHeader * 1000 : undefined);
  const duetBody = body.success && body.data.code !== undefined && body.data.code in ERROR_CODES;
  // A 5xx without Duet's error body came from something in front of the Worker (a proxy,
  // the runtime restarting): the back end was not reached, so it is safe to try again.
  const code = (duetBody ? body.data!.code : status >= 500 ? "worker_unreachable" : codeForStatus(status)) as ErrorCode;
  const message = body.success ? body.data.error : `the Worker answered HTTP ${status}`;
  return new DuetError(code, message, {
    status,
    retryAfterMs,
    details: body.success ? body.data.details : undefined,
  });
}

function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400: return "invalid_request";
    case 401: return "unauthorized";
    case 404: return "not_found";
    case 405: return "method_not_allowed";
    case 409: return "already_decided";
    case 410: return "approval_expired";
    case 413: return "payload_too_large";
    case 429: return "room_busy";
    default: return "internal";
  }
}
