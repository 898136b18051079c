import { DuetError, sandboxName } from "@duet/shared";
import type { CheckoutAsk, CheckoutDone } from "./types.ts";

/** A checkout's deadline: the executor's own steps (a fetch, then a clone) may take up to 5 minutes each. */
const CHECKOUT_TIMEOUT_MS = 11 * 60_000;

/**
 * `POST /api/git/checkout` on the local executor (sandbox/src/git/): the
 * executor fetches with the token on its side and clones from that inside
 * the room's sandbox. Its one-line errors become DuetErrors: 404 (no such
 * repository or branch), 409 (`repo/` in the way) and 413 (the checkout does
 * not fit the workspace quota) are the person's to fix, anything else is the
 * sandbox's failure.
 */
export async function localCheckout(base: string, headers: Record<string, string>, roomId: string, ask: CheckoutAsk, stop?: AbortSignal): Promise<CheckoutDone> {
  const timeout = AbortSignal.timeout(CHECKOUT_TIMEOUT_MS);
  let res: Response;
  let body: { sha?: unknown; branch?: unknown; cloned?: unknown; note?: unknown; error?: unknown };
  try {
    res = await fetch(`${base}/api/git/checkout`, {
      method: "POST",
      headers,
      body: JSON.stringify({ sessionId: sandboxName(roomId), url: ask.url, branch: ask.branch, token: ask.token, repo: ask.repo }),
      signal: stop ? AbortSignal.any([timeout, stop]) : timeout,
    });
    body = (await res.json().catch(() => ({}))) as typeof body;
  } catch (err) {
    if (stop?.aborted) throw stop.reason;
    throw new DuetError("sandbox_error", "the sandbox executor cannot be reached for the checkout");
  }
  const said = typeof body.error === "string" ? body.error : `the sandbox executor answered HTTP ${res.status} to the checkout`;
  if (res.status === 404) throw new DuetError("not_found", said);
  if (res.status === 409) throw new DuetError("invalid_request", said, { status: 409 });
  if (res.status === 413) throw new DuetError("invalid_request", said, { status: 413 });
  if (!res.ok) throw new DuetError("sandbox_error", said, { retryable: res.status >= 500 });
  if (typeof body.sha !== "string" || typeof body.branch !== "string") throw new DuetError("sandbox_error", "the sandbox executor's checkout answer has no sha");
  return { sha: body.sha, branch: body.branch, cloned: body.cloned === true, ...(typeof body.note === "string" ? { note: body.note } : {}) };
}
