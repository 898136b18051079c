import { DuetError, describeForUser, type ErrorCode } from "../wire/errors.ts";
import { errorName, Span } from "../trace/span.ts";
import type { Reply } from "./reply.ts";
import { withRef } from "./traced.ts";
import type { ChatSurface } from "./surface.ts";
import type { FlowDeps, Outcome } from "./types.ts";
import { fullLineNote } from "../words/queue.ts";

/** How every flow calls the Worker: a failure becomes its words for the person and a line for the operator. */

export const outcome = (ok: boolean, posted: unknown): Outcome => (ok && posted ? "answered" : "failed");

/** The room refused this delivery's claim: another delivery of the same event answers it, and this one posts nothing. */
export const answeredElsewhere = (reply: Reply): boolean => reply.kind === "error" && reply.code === "answered_elsewhere";

/**
/**
 * A failure in words for the person, ending with the ref of the trace that
 * records it, and a line in the log for the operator. The trace is `span`'s
 * (an ask's, failed here) or a span of its own (`duet.<what>`), sent at once.
 * Without tracing and without a span there is no trace to find: no ref.
 * `asSaid`: the codes whose Worker message is itself the sentence for the
 * person (an install link, a rate limit, what to configure), shown as it is.
 */
export function failure(deps: FlowDeps, what: string, room: string, err: unknown, how: FailureOptions = {}): Reply {
  const { span, asSaid = [] } = how;
  deps.log(`${what} in ${room} failed: ${err instanceof Error ? err.message : String(err)}`);
  const said = err instanceof DuetError && asSaid.includes(err.code);
  const reply: Reply = { kind: "error", text: said ? (err as DuetError).message : wordsFor(err), ...(err instanceof DuetError ? { code: err.code } : {}) };
  if (span) {
    // Another delivery of the same event asks the room: nothing failed, and this one posts nothing.
    if (!answeredElsewhere(reply)) span.fail(errorName(err));
    return withRef(reply, span.traceId);
  }
  return refused(deps, what, room, reply, errorName(err));
}

/**
 * A refusal that is no thrown error (a file the Worker or the platform would
 * not take), told as every failure is: its words end with the ref of a
 * failed span of its own (`duet.<what>`, `reason` its error name), sent at
 * once. Without tracing there is no trace to find: no ref.
 */
export function refused(deps: FlowDeps, what: string, room: string, reply: Reply, reason: string): Reply {
  if (!deps.tracing) return reply;
  const own = new Span(deps.tracing.sink, `duet.${what.replace(/\s+/g, "_")}`, null, { attributes: { "gen_ai.conversation.id": room } }).fail(reason);
  own.end();
  deps.tracing.flush();
  return withRef(reply, own.traceId);
}

/** How a failure is told: in `span`'s trace when given; `asSaid`, codes whose Worker message is shown as it is. */
export interface FailureOptions {
  span?: Span;
  asSaid?: readonly ErrorCode[];
}

/** Calls the Worker; the reply is the answer or the failure in words (see failure). */
export async function attempt(deps: FlowDeps, what: string, room: string, call: () => Promise<Reply>, how: FailureOptions = {}): Promise<{ reply: Reply; ok: boolean }> {
  try {
    return { reply: await call(), ok: true };
  } catch (err) {
    return { reply: failure(deps, what, room, err, how), ok: false };
  }
}

/** The same, with the surface's progress shown until the Worker answered. */
export async function withProgress(deps: FlowDeps, surface: ChatSurface, what: string, room: string, call: () => Promise<Reply>, span?: Span): Promise<{ reply: Reply; ok: boolean }> {
  const stop = surface.showProgress();
  try {
    return await attempt(deps, what, room, call, { span });
  } finally {
    await stop();
  }
}

/** The sentence for a failure: a full line says its bound; the rest as describeForUser says them. */
const wordsFor = (err: unknown): string => (err instanceof DuetError && err.code === "room_busy" ? fullLineNote() : describeForUser(err));
