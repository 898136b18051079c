import { DuetError } from "@duet/shared";

/**
 * The 413 for a file past DUET_FILE_MAX_BYTES, the same words at every end; the
 * limit rides in `details.maxBytes`, so a bot whose own setting differs still
 * names the one that refused the file.
 */
export const fileTooLarge = (max: number) =>
  new DuetError("payload_too_large", `the file is larger than ${max} bytes (DUET_FILE_MAX_BYTES)`, { details: { maxBytes: [String(max)] } });

/** How much of an upload past the limit is read and dropped, so the 413 reaches a client still sending (wrangler dev's proxy breaks the connection otherwise). */
const DISCARD_MAX_BYTES = 8 * 1024 * 1024;

/**
 * `body` passed through as it arrives; once more than `max` bytes went by,
 * `over` is called (it aborts the upload's own request: a stream that merely
 * errors would reach the other end as a shorter, complete body) and the stream
 * fails with the 413, leaving `body` to be drained. Nothing is held beyond the
 * chunk in hand.
 */
export function limitStream(body: ReadableStream<Uint8Array>, max: number, over: () => void): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        seen += chunk.byteLength;
        if (seen <= max) return out.enqueue(chunk);
        over();
        throw fileTooLarge(max);
      },
    }),
    // A request torn down mid-upload must not cancel the person's upload: it is drained instead (drainUpload).
    { preventCancel: true },
  );
}

/** Reads and drops what is left of a refused upload (up to DISCARD_MAX_BYTES), so the 413 reaches a client still sending. */
export async function drainUpload(body: ReadableStream<Uint8Array>): Promise<void> {
  if (body.locked) return;
  const reader = body.getReader();
  try {
    for (let size = 0; size <= DISCARD_MAX_BYTES; ) {
      const { done, value } = await reader.read();
      if (done) return;
      size += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The client went away: nothing left to drain.
  } finally {
    reader.releaseLock();
  }
}
