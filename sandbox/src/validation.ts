import { BODY_MAX_BYTES, DEFAULT_COMMAND_TIMEOUT_MS } from "@duet/shared";
import { z } from "zod";
import { isValidSessionId } from "./workspace.ts";

/** What `POST /api/execute` accepts, with messages a person reading a 400 can act on. */

/** Same ceiling as the Worker's: a command body never needs more. */
export const EXECUTE_BODY_MAX_BYTES = BODY_MAX_BYTES;
/** Ten minutes: the Worker's own COMMAND_TIMEOUT_MS ceiling. */
export const TIMEOUT_MAX_MS = 600_000;
export const TIMEOUT_DEFAULT_MS = DEFAULT_COMMAND_TIMEOUT_MS;

export const sessionIdSchema = z
  .string({ error: "sessionId must be a string" })
  .refine(isValidSessionId, {
    message: "sessionId must be 1-220 characters of A-Z a-z 0-9 . _ - and not only dots (e.g. sandbox-<roomId>)",
  });

export const executeRequestSchema = z.object({
  command: z
    .string({ error: "command must be a non-empty string" })
    .refine((c) => c.trim().length > 0, { message: "command must be a non-empty string" })
    // A shell argument cannot hold one; refused here, not as a spawn failure.
    .refine((c) => !c.includes("\0"), { message: "command must not contain NUL characters (\\u0000)" }),
  sessionId: sessionIdSchema,
  timeoutMs: z
    .number({ error: `timeoutMs must be an integer number of milliseconds from 1 to ${TIMEOUT_MAX_MS}` })
    .int({ error: `timeoutMs must be an integer number of milliseconds from 1 to ${TIMEOUT_MAX_MS}` })
    .min(1, { error: `timeoutMs must be an integer number of milliseconds from 1 to ${TIMEOUT_MAX_MS}` })
    .max(TIMEOUT_MAX_MS, { error: `timeoutMs must be an integer number of milliseconds from 1 to ${TIMEOUT_MAX_MS}` })
    .optional()
    .transform((v) => v ?? TIMEOUT_DEFAULT_MS),
  // Who the command runs for (the Worker's `<platform>-<workspace>:<user>`), for the fair share of slots.
  person: z
    .string({ error: "person must be a string of 1-200 printable characters" })
    .regex(/^[\x21-\x7e]{1,200}$/, { error: "person must be a string of 1-200 printable characters" })
    .optional(),
});
export type ExecuteRequest = z.infer<typeof executeRequestSchema>;

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string; details: Record<string, string[]> };

/** Validates a parsed JSON body; the first problem becomes the `error` line, all of them `details`. */
export function parseExecuteRequest(body: unknown): Parsed<ExecuteRequest> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { ok: false, error: "body must be a JSON object {command, sessionId, timeoutMs?, person?}", details: {} };
  }
  const parsed = executeRequestSchema.safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data };
  const details: Record<string, string[]> = {};
  for (const issue of parsed.error.issues) {
    const key = issue.path.join(".") || "body";
    (details[key] ??= []).push(issue.message);
  }
  return { ok: false, error: parsed.error.issues[0].message, details };
}
