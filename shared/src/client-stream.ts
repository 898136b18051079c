import { DuetError, ERROR_CODES, type ErrorCode } from "./errors.ts";
import { messageResponseSchema, type MessageRequest, type MessageResponse, type TurnStreamEvent } from "./schemas.ts";
import { SseDecoder } from "./sse.ts";

/** What the streaming call needs from the WorkerClient. */
export interface StreamTransport {
  base: string;
  token: string;
  fetch: typeof fetch;
  /** Longest silence allowed between two pieces of the stream (the Worker sends a heartbeat every 15 s). */
  idleTimeoutMs: number;
  retries: number;
  sleep: (ms: number) => Promise<void>;
  /** Maps a refused request (non-2xx JSON) to the client's error vocabulary. */
  errorOf: (status: number, headers: Headers, json: unknown) => DuetError;
}

const RECONNECT_BASE_MS = 250;
const RECONNECT_MAX_MS = 4_000;

/**
 * A turn as it happens: each event goes to `onEvent`, and the call resolves
 * with the `done` body (the JSON answer, `stopped` when stopped) or throws the
 * `error` event as a DuetError. A connection lost mid-turn is re-opened when
 * the request carries an idempotency key: the Worker replays the turn's events
 * from the start, so the ones already handed out are skipped. `signal` only
 * hangs up; the turn goes on in the room (stopping it is `stop`).
 */
export async function streamMessage(
  t: StreamTransport,
  path: string,
  body: MessageRequest,
  onEvent: (e: TurnStreamEvent) => void,
  signal?: AbortSignal,
): Promise<MessageResponse> {
  // Events handed out so far. A replay starts from the turn's first event (a stored answer is only `done`).
  let handedOut = 0;
  for (let attempt = 0; ; attempt++) {
    let index = 0;
    try {
      return await streamOnce(t, path, body, signal, (e) => {
        if (index++ < handedOut) return;
        handedOut++;
        onEvent(e);
      });
    } catch (err) {
      if (attempt >= t.retries || signal?.aborted || !(err instanceof DuetError)) throw err;
      // A full room refused the turn before doing anything: always safe to ask again, when it says.
      if (err.code === "room_busy") {
        await t.sleep(Math.min(RECONNECT_MAX_MS * 2, err.retryAfterMs ?? RECONNECT_MAX_MS));
        continue;
      }
      const lost = err.code === "worker_unreachable" || err.code === "worker_timeout";
      if (!lost || !body.idempotencyKey) throw err;
      await t.sleep(Math.min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2 ** attempt));
    }
  }
}

async function streamOnce(
  t: StreamTransport,
  path: string,
  body: MessageRequest,
  signal: AbortSignal | undefined,
  deliver: (e: TurnStreamEvent) => void,
): Promise<MessageResponse> {
  const idle = new AbortController();
  let timer = setTimeout(() => idle.abort(), t.idleTimeoutMs);
  const heard = () => {
    clearTimeout(timer);
    timer = setTimeout(() => idle.abort(), t.idleTimeoutMs);
  };
  const lost = (): DuetError =>
    idle.signal.aborted
      ? new DuetError("worker_timeout", `the Worker's stream was silent for ${Math.round(t.idleTimeoutMs / 1000)} s`)
      : new DuetError("worker_unreachable", `lost the stream from the Worker at ${t.base}`);
  try {
    let res: Response;
    try {
      res = await t.fetch(`${t.base}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.token}`, "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, idle.signal]) : idle.signal,
      });
    } catch {
      throw lost();
    }
    if (!(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) return await plainAnswer(t, res);
    const reader = res.body!.getReader();
    const decoder = new SseDecoder();
    const text = new TextDecoder();
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch {
        throw lost();
      }
      if (chunk.done) throw lost();
      heard();
      let events: TurnStreamEvent[];
      try {
        events = decoder.push(text.decode(chunk.value, { stream: true }));
      } catch (err) {
        await reader.cancel().catch(() => undefined);
        throw new DuetError("bad_response", `the Worker's stream did not match the API: ${(err as Error).message}`.slice(0, 300));
      }
      for (const e of events) {
        if (e.event === "done") {
          await reader.cancel().catch(() => undefined);
          return e.data;
        }
        if (e.event === "error") throw streamError(e.data);
        deliver(e);
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

/** A Worker that answered JSON: an error, or an answer from a Worker that does not stream. */
async function plainAnswer(t: StreamTransport, res: Response): Promise<MessageResponse> {
  let json: unknown;
  try {
    json = await res.json();
  } catch {
    throw res.ok ? new DuetError("bad_response", `the Worker answered ${res.status} with a body that is not JSON`) : t.errorOf(res.status, res.headers, undefined);
  }
  if (!res.ok) throw t.errorOf(res.status, res.headers, json);
  const parsed = messageResponseSchema.safeParse(json);
  if (!parsed.success) throw new DuetError("bad_response", "the Worker's answer did not match the API");
  return parsed.data;
}

function streamError(data: Extract<TurnStreamEvent, { event: "error" }>["data"]): DuetError {
  const code = (data.code in ERROR_CODES ? data.code : "internal") as ErrorCode;
  return new DuetError(code, data.message, { retryable: data.retryable, retryAfterMs: data.retryAfterMs });
}
