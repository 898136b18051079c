import { roomId } from "@duet/shared";
import type { App } from "@slack/bolt";
import { z } from "zod";
import { answerTurn, isFromBot, messageEventFields, parseEvent, type TurnDeps } from "./turn.ts";
import { channelRoom, type MentionPlace, type RoomScope } from "./rooms.ts";

/**
 * A direct message to Duet (its Messages tab): no mention needed, the DM is the
 * person's own room with its own sandbox. A top-level DM is answered in the DM
 * itself, as a conversation; a DM in a thread is answered in that thread.
 */

const directMessageSchema = z.object({ type: z.literal("message"), channel_type: z.literal("im"), ...messageEventFields });

/** Subtypes of messages a person wrote: their text is a question like any other. */
const PERSON_SUBTYPES = new Set(["file_share", "thread_broadcast"]);

const EMPTY_DM_HINT = "Hi! Ask me something, e.g. `what's in this repo?`, or use `/duet help` for the commands.";

/**
 * The DM's room. The channel scope keeps one room per DM; the thread scope gives a
 * thread in the DM its own room, while top-level DMs share the DM's room (each one
 * being its own room would forget every answer).
 */
export function directMessageRoom(place: MentionPlace, scope: RoomScope): string {
  if (scope === "thread" && place.threadTs) return roomId("slack", place.teamId, place.channel, place.threadTs);
  return channelRoom(place.teamId, place.channel);
}

export function registerDirectMessages(app: App, deps: TurnDeps, track: (p: Promise<void>) => Promise<void>): void {
  app.event("message", async ({ event, body }) => {
    // Bolt delivers every message event here; only direct messages to Duet concern it.
    if ((event as { channel_type?: string }).channel_type !== "im") return;
    await track(handleDirectMessage(event, body, deps));
  });
}

export async function handleDirectMessage(rawEvent: unknown, rawBody: unknown, deps: TurnDeps): Promise<void> {
  const parsed = parseEvent(directMessageSchema, rawEvent, rawBody, "direct message", deps.logger);
  if (!parsed) return;
  const e = parsed.event;
  // Edits, deletions, joins and every bot's messages (Duet's own answers included) are not
  // questions; a message with a file attached, or also sent to the conversation, is.
  if (isFromBot(e, deps.botUserId) || !e.user || (e.subtype && !PERSON_SUBTYPES.has(e.subtype))) return;
  await answerTurn(deps, {
    eventId: parsed.eventId,
    place: parsed.place,
    kind: "direct message",
    user: e.user,
    text: e.text,
    roomFor: (place) => directMessageRoom(place, deps.scope),
    replyIn: (place) => place.threadTs,
    emptyHint: EMPTY_DM_HINT,
  });
}
