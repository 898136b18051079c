import type { Context } from "hono";
import { BODY_MAX_BYTES, DuetError } from "@duet/shared";
import type { z } from "zod";

/**
 * Reads and validates a JSON body. Too large is 413 (checked on the bytes, not
 * only Content-Length, which a client may omit or lie about); malformed JSON
 * and schema failures are 400 with zod's flattened field errors.
 */
export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  const declared = Number(c.req.header("content-length"));
  if (Number.isFinite(declared) && declared > BODY_MAX_BYTES) throw tooLarge();
  const buf = await c.req.arrayBuffer();
  if (buf.byteLength > BODY_MAX_BYTES) throw tooLarge();
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(buf));
  } catch {
    throw new DuetError("invalid_request", "invalid request", { details: { body: ["Body must be valid JSON (UTF-8)"] } });
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new DuetError("invalid_request", "invalid request", { details: { body: ["Body must be a JSON object"] } });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const flat = parsed.error.flatten() as { formErrors: string[]; fieldErrors: Record<string, string[] | undefined> };
    const details: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(flat.fieldErrors)) if (v?.length) details[k] = v;
    if (flat.formErrors.length) details.body = flat.formErrors;
    throw new DuetError("invalid_request", "invalid request", { details });
  }
  return parsed.data;
}

function tooLarge() {
  return new DuetError("payload_too_large", `request body exceeds ${BODY_MAX_BYTES} bytes`);
}
