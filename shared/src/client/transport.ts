import type { z } from "zod";
import { DuetError, type ErrorCode, ERROR_CODES } from "../wire/errors.ts";
import { DEFAULT_CLIENT_TIMEOUT_MS } from "../wire/limits.ts";
import { errorBodySchema } from "../wire/schemas.ts";

/**
 * The one way to the Worker under the JSON client and the stream client:
 * fetch with the bearer token, the deadline, one retry policy and one mapping
 * of every failure to a DuetError, so both clients fail in the same words.
 */

/** First wait before trying again; it doubles per attempt. */
export const RETRY_BASE_MS = 250;
/** Longest wait between two attempts: the Worker restarting takes a few seconds. */
export const RETRY_MAX_MS = 4_000;
/** Longest wait a full room's Retry-After is followed for: its turns take seconds, and the person is waiting. */
export const BUSY_WAIT_MAX_MS = 2 * RETRY_MAX_MS;
/** Extra attempts unless the caller says otherwise. */
export const DEFAULT_RETRIES = 5;

export interface TransportOptions {
  /** Base URL of the Worker, e.g. http://127.0.0.1:8787 */
  baseUrl: string;
  token: string;
  timeoutMs?: number;
  /** Injected for tests; defaults to the global fetch (undici keeps connections alive). */
  fetch?: typeof fetch;
  /**
   * Extra attempts when the Worker is unreachable or answers 500, with
   * exponential backoff (RETRY_BASE_MS doubling, at most RETRY_MAX_MS apart).
   * Only requests that are safe to repeat are retried: reads, deletes,
   * messages carrying an idempotency key, and anything refused before it
   * reached the Worker or refused by a full room (429, after its Retry-After).
   */
  retries?: number;
  /** Injected for tests: how to wait between attempts. */
  sleep?: (ms: number) => Promise<void>;
}

/** Raw bytes sent as a request's body: a stream can be sent once only, so such a request is never repeated. */
export interface Upload {
  body: ReadableStream<Uint8Array> | Uint8Array;
  /** Sent as Content-Length when known, so the Worker can refuse a file past its limit before reading it. */
  bytes?: number;
}

/** A failure that never reached the Worker (connection refused): safe to repeat even a request that runs a command. */
export type TransportError = DuetError & { refused?: boolean };

/** A lost connection or a 500: a request that is safe to repeat may be sent again. */
export const isTransient = (e: TransportError) => e.code === "worker_unreachable" || (e.code === "internal" && e.status === 500);

export class WorkerTransport {
  readonly base: string;
  readonly timeoutMs: number;
  private readonly token: string;
  private readonly fetchImpl: typeof fetch;
  private readonly retries: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(opts: TransportOptions) {
    this.base = opts.baseUrl.replace(/\/+$/, "");
    this.token = opts.token;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_CLIENT_TIMEOUT_MS;
    this.fetchImpl = opts.fetch ?? fetch;
    this.retries = opts.retries ?? DEFAULT_RETRIES;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  /**
   * One request with the token: `body` is sent as JSON, `upload` as raw bytes
   * (streamed; `bytes`, when known, as Content-Length). A request that never
   * got an answer throws `worker_timeout` (past `timeoutMs`, when no `signal`
   * is given) or `worker_unreachable`, marked `refused` when nothing was sent.
   */
  async send(method: string, path: string, init: { body?: unknown; upload?: Upload; accept?: string; headers?: Record<string, string>; signal?: AbortSignal; timeoutMs?: number } = {}): Promise<Response> {
    const timeoutMs = init.timeoutMs ?? this.timeoutMs;
    const { upload } = init;
    try {
      return await this.fetchImpl(`${this.base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          // Cloudflare (and miniflare, which mimics it) gzips JSON and event streams for a client that accepts
          // it: the answers are small and near, and inflating every one cost the bot about 4 % of its CPU under a burst.
          "accept-encoding": "identity",
          ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
          ...(upload ? { "content-type": "application/octet-stream" } : {}),
          ...(upload?.bytes !== undefined ? { "content-length": String(upload.bytes) } : {}),
          ...(init.accept ? { accept: init.accept } : {}),
          ...init.headers,
        },
        body: upload ? upload.body : init.body !== undefined ? JSON.stringify(init.body) : undefined,
        // A streamed request body must say so (fetch sends it while the answer may already come back).
        // `redirect: "error"`: to follow a redirect fetch clones the request, teeing the body, and the
        // unread branch keeps every byte sent (a whole 20 MiB file in the bot's memory, measured).
        ...(upload ? { duplex: "half", redirect: "error" } : {}),
        signal: init.signal ?? AbortSignal.timeout(timeoutMs),
      } as RequestInit);
    } catch (err) {
      const name = (err as Error)?.name;
      if (!init.signal && (name === "TimeoutError" || name === "AbortError")) {
        throw new DuetError("worker_timeout", `no answer from the Worker within ${Math.round(timeoutMs / 1000)} s`);
      }
      const cause = (err as { cause?: { code?: string } }).cause;
      throw Object.assign(new DuetError("worker_unreachable", `cannot reach the Worker at ${this.base}`), { refused: cause?.code === "ECONNREFUSED" });
    }
  }

  /** The answer itself when it is 2xx (a body of bytes, not JSON); a refusal becomes its DuetError. */
  async accepted(res: Response): Promise<Response> {
    if (res.ok) return res;
    throw errorFromStatus(res.status, res.headers, await res.json().catch(() => undefined));
  }

  /** The answer's JSON, read once and checked against `schema`; a refusal (not 2xx) becomes its DuetError. */
  async read<S extends z.ZodType>(res: Response, schema: S): Promise<z.infer<S>> {
    let json: unknown;
    try {
      json = await res.json();
    } catch {
      if (!res.ok) throw errorFromStatus(res.status, res.headers, undefined);
      throw new DuetError("bad_response", `the Worker answered ${res.status} with a body that is not JSON`);
    }
    if (!res.ok) throw errorFromStatus(res.status, res.headers, json);
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new DuetError("bad_response", "the Worker's answer did not match the API");
    return parsed.data;
  }

  /**
   * Runs `once` until it succeeds or may not be repeated. A busy room
   * (`room_busy`) refused the request before doing anything, so it is asked
   * again after its Retry-After when it gives one (a room whose line is full
   * gives none: that refusal is final); any other failure is repeated, with
   * backoff, only when `mayRepeat` says the request is safe to send again.
   */
  async retrying<T>(once: () => Promise<T>, mayRepeat: (err: TransportError) => boolean, signal?: AbortSignal): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await once();
      } catch (err) {
        if (attempt >= this.retries || signal?.aborted || !(err instanceof DuetError)) throw err;
        if (err.code === "room_busy") {
          // A full room's line refuses for good (no Retry-After): the person is told at once.
          if (err.retryAfterMs === undefined) throw err;
          await this.sleep(Math.min(BUSY_WAIT_MAX_MS, err.retryAfterMs));
          continue;
        }
        if (!mayRepeat(err)) throw err;
        await this.sleep(Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** attempt));
      }
    }
  }
}

/** A refused request (status, headers, JSON body if any) in the client's error vocabulary. */
export function errorFromStatus(status: number, headers: Headers, json: unknown): DuetError {
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
    case 403: return "own_proposal";
    case 404: return "not_found";
    case 405: return "method_not_allowed";
    case 409: return "already_decided";
    case 410: return "approval_expired";
    case 413: return "payload_too_large";
    case 429: return "room_busy";
    default: return "internal";
  }
}
