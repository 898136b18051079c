import type { Context } from "hono";
import { CLAIM_SCOPE, DuetError } from "@duet/shared";
import { z } from "zod";

/**
 * Reading a request the same way on every route: the Worker's own (http/) and
 * the installation store's (installations/), which sits below http/.
 */

export const methodNotAllowed = () => {
  throw new DuetError("method_not_allowed", "method not allowed");
};

const invalid = (details: Record<string, string[]>) => new DuetError("invalid_request", "invalid request", { details });

/** A scope route's `:scope` (a platform and workspace, as the bots' claims and pace name it), or a 400 naming it. */
export function scopeOf(raw: string | undefined): string {
  if (!raw || !CLAIM_SCOPE.test(raw)) {
    throw invalid({ scope: ["Scope must be 1-100 characters from A-Z a-z 0-9 . _ - (a platform and workspace, e.g. slack-T123)"] });
  }
  return raw;
}

/** Reads and validates a JSON object body: malformed JSON and schema failures are 400 with zod's flattened field errors. */
export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(await c.req.arrayBuffer()));
  } catch {
    throw invalid({ body: ["Body must be valid JSON (UTF-8)"] });
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw invalid({ body: ["Body must be a JSON object"] });
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const flat = z.flattenError(parsed.error) as { formErrors: string[]; fieldErrors: Record<string, string[] | undefined> };
    const details: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(flat.fieldErrors)) if (v?.length) details[k] = v;
    if (flat.formErrors.length) details.body = flat.formErrors;
    throw invalid(details);
  }
  return parsed.data;
}
