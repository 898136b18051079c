import { z } from "zod";
import { IDEMPOTENCY_KEY_MAX_CHARS } from "./limits.ts";
import { deliveryTargetSchema } from "./delivery-target.ts";
import { messageResponseSchema } from "./schemas.ts";

export { DELIVERY_PLATFORMS, deliveryTargetSchema, type DeliveryPlatform, type DeliveryTarget } from "./delivery-target.ts";

/** A platform message id (a Slack ts, a Discord snowflake). */
const messageIdField = z.string().min(1, "Message id cannot be empty").max(200, "Message id must be at most 200 characters");

/**
 * A bot tells the room what it posted for a turn (named by the turn's
 * idempotency key). `final: false`: a message that will become the answer (a
 * live answer's first post), so a delivery cut off later edits it; `final:
 * true` (the default): the answer is posted and the room stops offering it.
 */
export const deliveryConfirmSchema = z.object({
  key: z.string().min(1, "Key cannot be empty").max(IDEMPOTENCY_KEY_MAX_CHARS),
  messageId: messageIdField,
  final: z.boolean().default(true),
  /**
   * The proposal that follows an answer ending with the model's `<pr>` was
   * posted (or its failure said) after the answer `messageId`: the room stops
   * offering it. Until then an answer confirmed delivered still waits for it.
   */
  proposed: z.boolean().optional(),
});
export type DeliveryConfirm = z.input<typeof deliveryConfirmSchema>;
/**
 * `confirmed`: the room holds this message as the answer. `first`: this call is
 * the one that marked it delivered (true once per answer, whichever bot or
 * retry confirms), so a step that must follow a delivery once goes with it.
 */
export const deliveryConfirmResponseSchema = z.object({ confirmed: z.boolean(), first: z.boolean().optional() });

/**
 * How long a claimed item is a bot's alone, unless the Worker's
 * DUET_DELIVERY_LEASE_MS says otherwise: long enough to post a long answer
 * (Slack paces posts at ~1/s), short because a read left open by a bot that
 * died still claims what it is woken for, and that answer waits out the lease.
 */
export const DELIVERY_LEASE_MS = 15_000;
/**
 * The lease's bounds. At least a second: a bot renews a held answer every
 * third of the lease, and an answer handed out by the feed must be posted
 * within one. At most 10 minutes: a bot that dies leaves its answers that long.
 */
export const DELIVERY_LEASE_MIN_MS = 1_000;
export const DELIVERY_LEASE_MAX_MS = 10 * 60 * 1000;

/**
 * A bot still posting the answer under `key` (waiting its channel's turn)
 * keeps it from every other bot's delivery for the Worker's lease, and asks
 * again before that runs out; a bot that dies stops asking and the lease lapses.
 */
export const deliveryHoldSchema = z.object({ key: z.string().min(1, "Key cannot be empty").max(IDEMPOTENCY_KEY_MAX_CHARS) });
export type DeliveryHold = z.input<typeof deliveryHoldSchema>;
/**
 * `held`: an answer waits under that key and is leased to the caller now; false when it is delivered or unknown.
 * `leaseMs`: how long the lease lasts (the Worker's DUET_DELIVERY_LEASE_MS), so the bot asks again in time;
 * absent from a Worker that does not say, whose lease is DELIVERY_LEASE_MS.
 */
export const deliveryHoldResponseSchema = z.object({
  held: z.boolean(),
  leaseMs: z.number().int().min(DELIVERY_LEASE_MIN_MS).max(DELIVERY_LEASE_MAX_MS).optional(),
});
export type DeliveryHoldResponse = z.infer<typeof deliveryHoldResponseSchema>;

/** One answer waiting for a bot: claimed (leased) for the bot that read it. */
export const deliveryItemSchema = z.object({
  roomId: z.string(),
  key: z.string(),
  deliver: deliveryTargetSchema,
  /** What an earlier delivery posted and never confirmed: edit this instead of posting again. */
  messageId: z.string().nullable(),
  question: z.string(),
  userId: z.string().nullable(),
  answer: messageResponseSchema,
  /** The lease ends here: confirm before, or another bot may deliver it. */
  leaseUntil: z.number(),
  /** When the room answered (ms), for the outbox's lag; absent from a Worker that does not say. */
  answeredAt: z.number().optional(),
  /** The turn's W3C `traceparent`: the bot's delivery span joins the turn's trace (a malformed one starts a new trace). */
  traceparent: z.string().max(512).optional(),
  /**
   * The answer is posted (as `messageId`) and confirmed; the proposal after it
   * (the model's `<pr>`) is not: the bot that delivered it died before posting
   * it. Only the proposal is to be posted, then confirmed with `proposed`.
   */
  proposalOnly: z.boolean().optional(),
});
export type DeliveryItem = z.infer<typeof deliveryItemSchema>;
export const deliveryFeedResponseSchema = z.object({ items: z.array(deliveryItemSchema) });
export type DeliveryFeedResponse = z.infer<typeof deliveryFeedResponseSchema>;

/** How long a bot's read of the feed waits for an item before answering empty (the bot then reads again). */
export const DELIVERY_WAIT_MAX_MS = 25_000;
