import type { Context, Env, MiddlewareHandler } from "hono";
import { validator } from "hono/validator";
import { CLAIM_SCOPE, DuetError } from "@duet/shared";
import { z } from "zod";

/**
 * Reading a request the same way on every route: the Worker's own (http/) and
 * those of the stores below it (installations/, claims/, pace/). A route names
 * what it reads as middleware; its handler finds it checked in
 * `c.req.valid("json")` / `c.req.valid("param")`.
 */

const invalid = (details: Record<string, string[]>) => new DuetError("invalid_request", "invalid request", { details });

/** A scope route's `:scope` (a platform and workspace, as the bots' claims and pace name it), or a 400 naming it. */
function scopeOf(raw: string | undefined): string {
  if (!raw || !CLAIM_SCOPE.test(raw)) {
    throw invalid({ scope: ["Scope must be 1-100 characters from A-Z a-z 0-9 . _ - (a platform and workspace, e.g. slack-T123)"] });
  }
  return raw;
}

/** `:scope`, checked before the body is read: `c.req.valid("param").scope`. */
export const scopeParam = validator("param", (params: { scope?: string }) => ({ scope: scopeOf(params.scope) }));

/** One decoder for every body: without `stream` each decode stands alone, so it is shared safely. */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** Reads and validates a JSON object body: malformed JSON and schema failures are 400 with zod's flattened field errors. */
async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  let json: unknown;
  try {
    json = JSON.parse(UTF8.decode(await c.req.arrayBuffer()));
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

/**
 * The body, read and checked by `schema` before the handler runs:
 * `c.req.valid("json")`. Not hono's `validator("json")`, which skips a body
 * sent without a JSON Content-Type; here every body is read as JSON, whatever
 * it claims to be, and refused with the same 400 when it is not.
 */
export function jsonBody<S extends z.ZodType>(schema: S): MiddlewareHandler<Env, string, { in: { json: z.input<S> }; out: { json: z.output<S> } }> {
  return async (c, next) => {
    c.req.addValidatedData("json", (await readJson(c, schema)) as {});
    await next();
  };
}
