import { DuetError, SseFrames } from "@duet/shared";

/**
 * The `data` of each event in an SSE body, as it arrives, up to `data: [DONE]`
 * or the end of the body. Stopping early cancels the body, which releases the
 * connection.
 */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string, void> {
  const frames = new SseFrames();
  const text = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const got = done ? [...frames.push(text.decode()), frames.finish()] : frames.push(text.decode(value, { stream: true }));
      for (const frame of got) {
        if (!frame) continue;
        if (frame.data === "[DONE]") return;
        yield frame.data;
      }
      if (done) return;
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

/**
 * One event's JSON. An event that is not JSON, or that reports an error in the
 * stream (the request was accepted, then failed), ends the answer with words a
 * person can act on.
 */
export function parseEvent(data: string): Record<string, unknown> {
  let event: unknown;
  try {
    event = JSON.parse(data);
  } catch {
    throw new DuetError("model_error", "the model endpoint sent a stream event that is not JSON");
  }
  if (typeof event !== "object" || event === null) throw new DuetError("model_error", "the model endpoint sent a stream event that is not an object");
  const error = (event as { error?: unknown }).error;
  if (error !== undefined && error !== null) throw new DuetError("model_error", `the model endpoint reported an error: ${errorText(error)}`.slice(0, 300));
  return event as Record<string, unknown>;
}

/** What an error body says: `{error: {message}}`, `{error: "..."}` or `{message}`. */
export function errorText(error: unknown): string {
  if (typeof error === "string") return error;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : JSON.stringify(error);
}
