import { z } from "zod";

/**
 * The channel pace the bot replicas share (`POST /api/pace/:scope`): before a
 * call that creates a message in a channel, a bot asks the Worker for the
 * channel's next slot and waits `waitMs` for it, so several replicas (Slack
 * HTTP replicas behind one address, Discord shard processes) together post at
 * most one new message a second in a channel. The scope names the platform and
 * workspace (`slack-T123`; Discord's channel ids are unique on their own, so its
 * channels are spread over a few scopes by id: `discord-7`), with the
 * characters of a claim scope.
 */

/** Least time between two slots of one channel when the bot does not say. */
export const PACE_INTERVAL_MS = 1_000;
/** The longest interval a bot may ask for: Discord's five per five seconds at its slowest. */
export const PACE_INTERVAL_MAX_MS = 10_000;
/**
 * Added to a channel's interval when its slot follows another process's and
 * that process has not said its message was posted: a slot is counted from
 * when it was handed out, and one replica's call may reach the platform later
 * than another's (a slower answer, a busier event loop); this covers that.
 * Once the other process says its call ended (`POST /api/pace/:scope/end`),
 * the next slot is the interval after that end instead, as within one
 * process: replicas taking a busy channel's slots in turn then post as fast
 * as one process does, and a short answer still streams rather than waiting
 * whole for a slot that lags the room.
 */
export const PACE_SHARED_MARGIN_MS = 250;
/**
 * Longest the Worker holds a slot's answer waiting to hear that the message
 * before it (another process's) was posted: below PACE_ASK_TIMEOUT_MS, so the
 * asker never gives up on a slot the Worker is still deciding. Past it, the
 * slot is answered with the margin's arithmetic at once.
 */
export const PACE_END_WAIT_MAX_MS = 2_000;
/**
 * How long a bot waits for its slot's answer before it posts on its own pace
 * alone (a Worker that refuses or fails is not waited for). A Worker busy with a
 * burst of turns can take over a second to answer while the answers it sends
 * are as slow; measured under `pnpm bench replicas`, 1 s fell back in every
 * burst, and two replicas then put 2 messages in one second into a channel.
 */
export const PACE_ASK_TIMEOUT_MS = 3_000;

export const paceSlotSchema = z.object({
  /** The platform's channel id (a thread's replies count toward their channel). */
  channel: z.string().trim().min(1, "Channel cannot be empty").max(200, "Channel must be at most 200 characters"),
  intervalMs: z.number().int().min(1).max(PACE_INTERVAL_MAX_MS).default(PACE_INTERVAL_MS),
  /** The asking process (any id of its own): a slot right after another process's gets PACE_SHARED_MARGIN_MS more. */
  holder: z.string().trim().max(100, "Holder must be at most 100 characters").default(""),
});
export type PaceSlotRequest = z.input<typeof paceSlotSchema>;

/** `POST /api/pace/:scope/end`: `holder`'s new message in `channel` was posted (its call ended). */
export const paceEndSchema = z.object({
  channel: paceSlotSchema.shape.channel,
  holder: z.string().trim().min(1, "Holder cannot be empty").max(100, "Holder must be at most 100 characters"),
});
export type PaceEnd = z.input<typeof paceEndSchema>;
/** `ended`: false when no slot of that holder was waiting to hear it (forgotten, or said twice). */
export const paceEndResultSchema = z.object({ ended: z.boolean() });

/** How long the asker waits before its call: 0 when the channel is free now. */
export const paceSlotResultSchema = z.object({ waitMs: z.number().int().min(0) });
export type PaceSlot = z.infer<typeof paceSlotResultSchema>;
