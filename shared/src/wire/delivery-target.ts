import { z } from "zod";
import { BOT_PLATFORMS } from "./room-id.ts";

/** The chat platforms a room delivers to (those with a bot); each has one feed of undelivered items. */
export const DELIVERY_PLATFORMS = BOT_PLATFORMS;
export type DeliveryPlatform = (typeof DELIVERY_PLATFORMS)[number];

/** A place field (a channel, a thread ts, a message id): platform ids are short. */
const placeValue = z.string().min(1).max(200);

/**
 * Where a turn's answer goes, as the bot that started it describes it (a Slack
 * channel and thread, a Discord channel). The Worker keeps it with the turn and
 * hands it back unread to whichever bot delivers the answer.
 */
export const deliveryTargetSchema = z.object({
  platform: z.enum(DELIVERY_PLATFORMS, { error: `Platform must be ${DELIVERY_PLATFORMS.join(" or ")}` }),
  place: z.record(z.string().max(40), placeValue).refine((p) => Object.keys(p).length <= 8, "A place has at most 8 fields"),
});
export type DeliveryTarget = z.infer<typeof deliveryTargetSchema>;
