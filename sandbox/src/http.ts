import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** HTTP plumbing for the executor's server: bounded bodies, JSON answers, the bearer check. */

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: Record<string, string[]>,
  ) {
    super(message);
  }
}

/** Past the limit we read and drop this much more, so the client sees our 413 rather than a reset. */
const DISCARD_MAX_BYTES = 8 * 1024 * 1024;

/** Reads the body, refusing (413) past `maxBytes` without keeping the rest. */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const declared = Number(req.headers["content-length"]);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = Number.isFinite(declared) && declared > maxBytes;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) over = true;
      if (!over) chunks.push(chunk);
      else if (size > maxBytes + DISCARD_MAX_BYTES) req.destroy();
    });
    req.on("end", () => (over ? reject(tooLarge(maxBytes)) : resolve(Buffer.concat(chunks).toString("utf8"))));
    req.on("error", (err) => reject(over ? tooLarge(maxBytes) : err));
  });
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, `request body is larger than ${maxBytes} bytes`);
}

export async function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const text = await readBody(req, maxBytes);
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, "request body must be JSON");
  }
}

/**
 * Bearer check in constant time. Both sides are hashed first so the comparison
 * never leaks the token's length either.
 */
export function isAuthorized(req: IncomingMessage, token: string | undefined): boolean {
  if (!token) return true;
  const header = req.headers.authorization ?? "";
  const match = /^Bearer (.+)$/i.exec(header);
  const given = createHash("sha256").update(match ? match[1] : "").digest();
  const wanted = createHash("sha256").update(token).digest();
  return timingSafeEqual(given, wanted) && match !== null;
}
