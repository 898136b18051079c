import { ConfigError, DuetError } from "@duet/shared";

/**
 * An RPC answer: the HTTP status and JSON body the Worker should send. Room
 * methods return one rather than throw, so an error crosses the RPC boundary
 * as data with its status intact.
 */
export interface Outcome {
  status: number;
  body: unknown;
  /** The body as JSON text, when it was written more cheaply than by serialising it; always equal to JSON.stringify(body). */
  bodyJson?: string;
}

export const ok = (body: unknown): Outcome => ({ status: 200, body });

/**
 * An Outcome as it crosses RPC: the body already serialised. A turn's answer
 * carries the room's 50-message history; as an object the runtime would clone
 * it into the Worker, which would then serialise it again. As JSON text it is
 * one string copy, and the Worker sends it as it is.
 */
export interface WireOutcome {
  status: number;
  json: string;
  /** Set on a 429, for the Retry-After header. */
  retryAfterMs?: number;
}

export function toWire(outcome: Outcome): WireOutcome {
  const retryAfterMs = (outcome.body as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return {
    status: outcome.status,
    json: outcome.bodyJson ?? JSON.stringify(outcome.body),
    ...(outcome.status === 429 && typeof retryAfterMs === "number" ? { retryAfterMs } : {}),
  };
}

/** A successful answer given again to a retry: the same body, marked as not its own. */
export function markReplayed(outcome: Outcome): Outcome {
  return outcome.status === 200 ? ok({ ...(outcome.body as object), replayed: true }) : outcome;
}

/** The Outcome for an error: a DuetError keeps its code and status, a config error is 503, anything else a logged 500. */
export function outcomeOf(err: unknown): Outcome {
  if (err instanceof DuetError) return { status: err.status, body: err.toBody() };
  if (err instanceof ConfigError) return { status: 503, body: { error: err.message, code: "internal" } };
  console.error("room error", err);
  return { status: 500, body: { error: "internal error", code: "internal" } };
}

/** Runs `fn`, turning whatever it throws into an Outcome. */
export async function guard(fn: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return await fn();
  } catch (err) {
    return outcomeOf(err);
  }
}

/** guard, answered as it crosses RPC. */
export async function guardWire(fn: () => Promise<Outcome>): Promise<WireOutcome> {
  return toWire(await guard(fn));
}
