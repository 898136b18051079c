import { EMPTY_DM_HINT, roomId } from "@duet/shared";
import type { App } from "@slack/bolt";
import { z } from "zod";
import { answerMessage, messageEventFields, type MessageDeps } from "./turn.ts";
import { channelRoom, type MessagePlace, type RoomScope } from "./rooms.ts";

/**
 * A direct message to Duet (its Messages tab): no mention needed, the DM is the
 * person's own room with its own sandbox. A top-level DM is answered in the DM
 * itself, as a conversation. A person's message in a thread of the DM is a
 * conversation of the agent pane (pane/agent-pane.ts: bolt's Assistant takes
 * it before this listener), a room of its own; a reply also sent to the DM
 * (thread_broadcast) stays here and is answered in its thread.
 */

/**
 * The DM's room. The channel scope keeps one room per DM; the thread scope gives a
 * thread in the DM its own room, while top-level DMs share the DM's room (each one
 * being its own room would forget every answer).
 */
export function directMessageRoom(place: MessagePlace, scope: RoomScope): string {
  if (scope === "thread" && place.threadTs) return roomId("slack", place.teamId, place.channel, place.threadTs);
  return channelRoom(place.teamId, place.channel);
}

export const DIRECT_MESSAGE = {
  schema: z.object({ type: z.literal("message"), channel_type: z.literal("im"), ...messageEventFields }),
  label: "direct message",
  roomFor: directMessageRoom,
  replyIn: (place: MessagePlace) => place.threadTs,
  emptyHint: EMPTY_DM_HINT,
};

export function registerDirectMessages(app: App, deps: MessageDeps, track: (p: Promise<void>) => Promise<void>): void {
  app.event("message", async ({ event, body }) => {
    // Bolt delivers every message event here, Duet's own answers and edits included; only DMs concern it.
    if ((event as { channel_type?: string }).channel_type !== "im") return;
    await track(answerMessage(deps, DIRECT_MESSAGE, event, body));
  });
}
