import type { MiddlewareHandler } from "hono";
import { BODY_MAX_BYTES, DuetError } from "@duet/shared";

/** How much of an oversized chunked upload is read and dropped so the connection stays usable. */
const DISCARD_MAX_BYTES = 1024 * 1024;

async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, seen: number, max: number): Promise<void> {
  for (let size = seen; size <= max + DISCARD_MAX_BYTES; ) {
    const { done, value } = await reader.read();
    if (done) return;
    size += value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
}

const tooLarge = (max: number) => new DuetError("payload_too_large", `request body exceeds ${max} bytes`);

/**
 * 413 past BODY_MAX_BYTES. A declared Content-Length is trusted (the runtime
 * holds the body to it); a chunked body is counted as it arrives and reading
 * stops keeping bytes at the limit. The rest of a moderately oversized upload
 * is read and thrown away before answering: answering with the upload still
 * arriving (as hono's bodyLimit does) breaks the connection for the next
 * request under `wrangler dev` ("Your worker restarted mid-request"). Past
 * DISCARD_MAX_BYTES the upload is cancelled instead.
 */
export const limitBody: MiddlewareHandler = (c, next) => limitBodyTo(BODY_MAX_BYTES)(c, next);

/** limitBody with another limit (GitHub's webhook payloads are larger than Duet's own requests). */
export const limitBodyTo = (max: number): MiddlewareHandler => async (c, next) => {
  const body = c.req.raw.body;
  if (!body) return next();
  const declared = c.req.header("content-length");
  if (declared !== undefined && !c.req.header("transfer-encoding")) {
    if (Number(declared) > max) throw tooLarge(max);
    return next();
  }
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await discardRest(reader, size, max);
      throw tooLarge(max);
    }
    chunks.push(value);
  }
  const whole = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  c.req.raw = new Request(c.req.raw, { body: whole });
  return next();
};
