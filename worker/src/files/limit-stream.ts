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
 * Bytes asked of the runtime per read. Handed a streamed body (no declared
 * length) chunk by chunk, workerd gives JavaScript about 2 KiB at a time: 10,000
 * trips through JavaScript and as many writes to the executor for 20 MiB, a
 * third of the declared-length speed. A read of at least this much is one trip.
 */
const READ_BYTES = 64 * 1024;

/** An upload on its way to the executor, counted against the limit. */
export interface LimitedUpload {
  stream: ReadableStream<Uint8Array>;
  /**
   * Stops passing bytes on (the executor answered before it read them all) and
   * settles once `body` is let go, to be drained after a refusal.
   */
  stop(): Promise<void>;
}

/**
 * `body` passed on in reads of READ_BYTES as it arrives; once more than `max`
 * bytes went by, `over` is called (it aborts the upload's own request: a stream
 * that merely errors would reach the other end as a shorter, complete body) and
 * the stream fails with the 413. `body` itself is never cancelled: a refused or
 * broken upload is drained instead (drainUpload), once `stop` has settled.
 * Nothing is held beyond the read in hand.
 */
export function limitStream(body: ReadableStream<Uint8Array>, max: number, over: () => void): LimitedUpload {
  // Native on both sides: the executor's request reads what is written here without a JavaScript queue between.
  const { readable, writable } = new IdentityTransformStream();
  const writer = writable.getWriter();
  const reader = body.getReader({ mode: "byob" });
  const done = (async () => {
    let seen = 0;
    try {
      for (;;) {
        const { value, done: ended } = await reader.readAtLeast(READ_BYTES, new Uint8Array(READ_BYTES));
        if (value?.byteLength) {
          seen += value.byteLength;
          if (seen > max) {
            over();
            await writer.abort(fileTooLarge(max));
            return;
          }
          await writer.write(value);
        }
        if (ended) return await writer.close();
      }
    } catch (err) {
      // The executor's request failed or the person's upload broke off: the request's own error says which.
      await writer.abort(err).catch(() => undefined);
    } finally {
      reader.releaseLock();
    }
  })();
  return { stream: readable, stop: () => writer.abort(new Error("the executor answered")).catch(() => undefined).then(() => done) };
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
