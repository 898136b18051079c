import { encodeSseEvent, SSE_HEARTBEAT, type TurnStreamEvent } from "@duet/shared";

/** A comment this often keeps proxies and load balancers from closing a quiet stream (a long command). */
export const SSE_HEARTBEAT_MS = 15_000;

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  // Proxies that buffer responses (nginx) would hold the events until the end.
  "x-accel-buffering": "no",
} as const;

/**
 * A turn's events as SSE bytes, with a heartbeat comment every `heartbeatMs`.
 * Cancelling the stream (the client hung up) only stops reading `events`:
 * whatever produces them goes on.
 */
export function sseStream(events: AsyncIterable<TurnStreamEvent>, heartbeatMs = SSE_HEARTBEAT_MS): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const source = events[Symbol.asyncIterator]();
  let timer: ReturnType<typeof setInterval> | undefined;
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (text: string) => {
        if (!cancelled) controller.enqueue(encoder.encode(text));
      };
      timer = setInterval(() => write(SSE_HEARTBEAT), heartbeatMs);
      void (async () => {
        try {
          for (let next = await source.next(); !next.done && !cancelled; next = await source.next()) write(encodeSseEvent(next.value));
          if (!cancelled) controller.close();
        } catch (err) {
          if (!cancelled) controller.error(err);
        } finally {
          clearInterval(timer);
        }
      })();
    },
    cancel() {
      cancelled = true;
      clearInterval(timer);
      void source.return?.();
    },
  });
}

export function sseResponse(events: AsyncIterable<TurnStreamEvent>, heartbeatMs?: number): Response {
  return new Response(sseStream(events, heartbeatMs), { status: 200, headers: SSE_HEADERS });
}

/**
 * A stream the room hands across RPC, through a pipe whose failure is
 * expected: a client that hangs up (a bot that died mid-turn) cancels the
 * room's end, and the copy into it fails with "Network connection lost".
 * Copied by the runtime itself, that rejection goes unhandled and is logged as
 * an uncaught error; copied here, it only ends the copy. The turn goes on in
 * the room either way. The native IdentityTransformStream crosses RPC as bytes
 * without a script-side copy of its own.
 */
export function hangUpSafe(stream: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const { readable, writable } = new IdentityTransformStream();
  stream.pipeTo(writable).catch(() => undefined);
  return readable;
}
