import { DuetError, sandboxName } from "@duet/shared";
import type { PushAsk } from "./types.ts";

/** A push's deadline: the commit in the sandbox, then the host's fetch of it and its push. */
const PUSH_TIMEOUT_MS = 8 * 60_000;

/**
 * `POST /api/git/push` on the local executor (sandbox/src/git/push.ts): the
 * change is committed in the sandbox and handed over as a bundle; the
 * executor's own git pushes it with the token. 404 and 409 are the person's
 * to fix (no checkout, nothing changed, the branch moved); anything else is
 * the sandbox's or the git host's failure.
 */
export async function localPush(base: string, headers: Record<string, string>, roomId: string, ask: PushAsk): Promise<{ sha: string }> {
  let res: Response;
  let body: { sha?: unknown; error?: unknown };
  try {
    res = await fetch(`${base}/api/git/push`, {
      method: "POST",
      headers,
      body: JSON.stringify({ sessionId: sandboxName(roomId), ...ask }),
      signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
    });
    body = (await res.json().catch(() => ({}))) as typeof body;
  } catch {
    throw new DuetError("sandbox_error", "the sandbox executor cannot be reached for the push");
  }
  const said = typeof body.error === "string" ? body.error : `the sandbox executor answered HTTP ${res.status} to the push`;
  if (res.status === 404) throw new DuetError("not_found", said);
  if (res.status === 409) throw new DuetError("invalid_request", said, { status: 409 });
  if (!res.ok) throw new DuetError("sandbox_error", said, { retryable: false });
  if (typeof body.sha !== "string") throw new DuetError("sandbox_error", "the sandbox executor's push answer has no sha");
  return { sha: body.sha };
}
