import { DuetError, describeForUser, type ErrorCode } from "../errors.ts";
import type { Reply } from "./reply.ts";
import type { ChatSurface } from "./surface.ts";
import type { FlowDeps, Outcome } from "./types.ts";

/** How every flow calls the Worker: a failure becomes its words for the person and a line for the operator. */

export const outcome = (ok: boolean, posted: unknown): Outcome => (ok && posted ? "answered" : "failed");

/** The room refused this delivery's claim: another delivery of the same event answers it, and this one posts nothing. */
export const answeredElsewhere = (reply: Reply): boolean => reply.kind === "error" && reply.code === "answered_elsewhere";

/**
 * A failure in words for the person, and a line in the log for the operator.
 * `asSaid`: the codes whose Worker message is itself the sentence for the
 * person (an install link, a rate limit, what to configure), shown as it is.
 */
export function failure(deps: FlowDeps, what: string, room: string, err: unknown, asSaid: readonly ErrorCode[] = []): Reply {
  deps.log(`${what} in ${room} failed: ${err instanceof Error ? err.message : String(err)}`);
  if (err instanceof DuetError && asSaid.includes(err.code)) return { kind: "error", text: err.message, code: err.code };
  return { kind: "error", text: describeForUser(err), ...(err instanceof DuetError ? { code: err.code } : {}) };
}

/** Calls the Worker; the reply is the answer or the failure in words (see failure for `asSaid`). */
export async function attempt(deps: FlowDeps, what: string, room: string, call: () => Promise<Reply>, asSaid: readonly ErrorCode[] = []): Promise<{ reply: Reply; ok: boolean }> {
  try {
    return { reply: await call(), ok: true };
  } catch (err) {
    return { reply: failure(deps, what, room, err, asSaid), ok: false };
  }
}

/** The same, with the surface's progress shown until the Worker answered. */
export async function withProgress(deps: FlowDeps, surface: ChatSurface, what: string, room: string, call: () => Promise<Reply>): Promise<{ reply: Reply; ok: boolean }> {
  const stop = surface.showProgress();
  try {
    return await attempt(deps, what, room, call);
  } finally {
    await stop();
  }
}
