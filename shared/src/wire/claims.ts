import { z } from "zod";

/**
 * Event claims (`POST /api/claims/:scope`): the one place every bot replica
 * asks "am I the first to handle this delivery?". A platform redelivers an
 * event to whichever replica the load balancer picks (a Slack retry, a Discord
 * message replayed after a resume), so a replica's own memory cannot answer
 * it; the Worker keeps each claimed id for a while, per scope (a workspace or
 * a guild: `slack-T123`, `discord-456`), in a Durable Object of that scope.
 */

/** A scope names the platform and the workspace or guild: the same characters as room ids. */
export const CLAIM_SCOPE = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * A message request may claim its idempotency key (`duet-claim: <claimant>`,
 * one value per delivery the bot received): the room answers the first
 * claimant of a key and refuses any other with `answered_elsewhere` (409),
 * while the same claimant (its own retry of a lost connection) follows the
 * turn, or gets its stored answer, like any retry of a key. The room (one per channel or thread) is where every
 * delivery of an event goes anyway, so this takes no extra round trip.
 */
export const CLAIM_HEADER = "duet-claim";
/** A claimant: the same characters as a scope. */
export const CLAIMANT = CLAIM_SCOPE;

/** Slack retries an event three times over ~5 minutes; a claim outlives the last retry. */
export const CLAIM_TTL_MS = 10 * 60 * 1000;
/** The longest a claim may be kept: a day covers any platform's redelivery. */
export const CLAIM_TTL_MAX_MS = 24 * 60 * 60 * 1000;

export const eventClaimSchema = z.object({
  /** The delivery's own id (Slack's `event_id`, a Discord message id). */
  id: z.string().trim().min(1, "Id cannot be empty").max(200, "Id must be at most 200 characters"),
  ttlMs: z.number().int().min(1_000).max(CLAIM_TTL_MAX_MS).default(CLAIM_TTL_MS),
});
export type EventClaim = z.input<typeof eventClaimSchema>;

/** `first`: this call claimed the id; false: another call (any replica) claimed it within the TTL. */
export const eventClaimResultSchema = z.object({ first: z.boolean() });
export type EventClaimResult = z.infer<typeof eventClaimResultSchema>;
