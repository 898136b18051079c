import { ConfigError, DuetError } from "@duet/shared";

/**
 * An RPC answer: the HTTP status and JSON body the Worker should send. Room
 * methods return one rather than throw, so an error crosses the RPC boundary
 * as data with its status intact.
 */
export interface Outcome {
  status: number;
  body: unknown;
}

export const ok = (body: unknown): Outcome => ({ status: 200, body });

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
