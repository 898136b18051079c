import { EMPTY_MENTION_HINT } from "@duet/shared";
import type { App } from "@slack/bolt";
import { z } from "zod";
import { mentionRoom, replyThread } from "./rooms.ts";
import { answerMessage, messageEventFields, type MessageDeps } from "./turn.ts";

/** `@Duet …` in a channel or thread: a turn in the room, answered in the thread of the mention. */

export const MENTION = {
  schema: z.object({ type: z.literal("app_mention"), ...messageEventFields }),
  label: "app_mention",
  roomFor: mentionRoom,
  replyIn: replyThread,
  emptyHint: EMPTY_MENTION_HINT,
};

/** `track` lets stop() wait for turns in flight and logs what they throw. */
export function registerMentions(app: App, deps: MessageDeps, track: (p: Promise<void>) => Promise<void>): void {
  app.event("app_mention", async ({ event, body }) => {
    await track(answerMessage(deps, MENTION, event, body));
  });
}
