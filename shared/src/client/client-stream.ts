import { DuetError, ERROR_CODES, type ErrorCode } from "../wire/errors.ts";
import { messageResponseSchema, STREAM_EVENTS_HEADER, type MessageRequest, type MessageResponse, type TurnStreamEvent } from "../wire/schemas.ts";
import { SseDecoder } from "../wire/sse.ts";
import type { WorkerTransport } from "./transport.ts";

/**
 * A turn as it happens: each event goes to `onEvent`, and the call resolves
 * with the `done` body (the JSON answer, `stopped` when stopped) or throws the
 * `error` event as a DuetError. A connection lost mid-turn is re-opened when
 * the request carries an idempotency key: the Worker replays the turn's events
 * from the start, so the ones already handed out are skipped. `signal` only
 * hangs up; the turn goes on in the room (stopping it is `stop`).
 * `onAnswered` hears each time the Worker answered an attempt (`admitted`:
 * with the turn's stream, so the room has the turn) or an attempt failed.
 */
export async function streamMessage(
  t: WorkerTransport,
  path: string,
  body: MessageRequest,
  onEvent: (e: TurnStreamEvent) => void,
  signal?: AbortSignal,
  headers: Record<string, string> = {},
  onAnswered: (admitted: boolean) => void = () => undefined,
): Promise<MessageResponse> {
  // Events handed out so far. A replay starts from the turn's first event (a stored answer is only `done`).
  let handedOut = 0;
  // A lost stream is joined again only with a key: without one a repeat would start a second turn.
  const lost = (e: DuetError) => (e.code === "worker_unreachable" || e.code === "worker_timeout") && Boolean(body.idempotencyKey);
  return t.retrying(() => {
    let index = 0;
    return streamOnce(t, path, body, { ...READS, ...headers }, signal, onAnswered, (e) => {
      if (index++ < handedOut) return;
      handedOut++;
      onEvent(e);
    });
  }, lost, signal);
}

/** The optional events this client reads: every connection asks for the same, so a re-joined stream counts alike. */
const READS = { [STREAM_EVENTS_HEADER]: "queued" };

async function streamOnce(
  t: WorkerTransport,
  path: string,
  body: MessageRequest,
  headers: Record<string, string>,
  signal: AbortSignal | undefined,
  answered: (admitted: boolean) => void,
  deliver: (e: TurnStreamEvent) => void,
): Promise<MessageResponse> {
  // The Worker's silence limit is the client's timeout; its heartbeat comes every 15 s.
  const idleTimeoutMs = t.timeoutMs;
  const idle = new AbortController();
  let timer = setTimeout(() => idle.abort(), idleTimeoutMs);
  const heard = () => {
    clearTimeout(timer);
    timer = setTimeout(() => idle.abort(), idleTimeoutMs);
  };
  const lost = (): DuetError =>
    idle.signal.aborted
      ? new DuetError("worker_timeout", `the Worker's stream was silent for ${Math.round(idleTimeoutMs / 1000)} s`)
      : new DuetError("worker_unreachable", `lost the stream from the Worker at ${t.base}`);
  try {
    let res: Response;
    try {
      res = await t.send("POST", path, { body, accept: "text/event-stream", headers, signal: signal ? AbortSignal.any([signal, idle.signal]) : idle.signal });
    } catch {
      answered(false);
      throw lost();
    }
    const streamed = (res.headers.get("content-type") ?? "").startsWith("text/event-stream");
    answered(res.ok && streamed);
    if (!streamed) return await t.read(res, messageResponseSchema);
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
          drain(reader);
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

/** Longest an answered stream is read for its end before it is cancelled (which closes its connection). */
export const DRAIN_MAX_MS = 1_000;

/**
 * Reads what is left of an answered stream (its end, right behind `done`)
 * without waiting for it. Cancelled instead, a stream whose end had not arrived
 * yet closes its connection, and the next request to the Worker opens a new one
 * (a stream per turn: every turn's confirm did, measured). One that does not
 * end soon is cancelled after all.
 */
function drain(reader: ReadableStreamDefaultReader<Uint8Array>): void {
  const late = setTimeout(() => void reader.cancel().catch(() => undefined), DRAIN_MAX_MS);
  (late as { unref?: () => void }).unref?.();
  void (async () => {
    try {
      while (!(await reader.read()).done);
    } catch {
      // A stream lost after its answer: nothing more was needed from it.
    } finally {
      clearTimeout(late);
    }
  })();
}

function streamError(data: Extract<TurnStreamEvent, { event: "error" }>["data"]): DuetError {
  const code = (data.code in ERROR_CODES ? data.code : "internal") as ErrorCode;
  return new DuetError(code, data.message, { retryable: data.retryable, retryAfterMs: data.retryAfterMs });
}
