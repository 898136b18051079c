import type { App } from "@slack/bolt";
import { z } from "zod";
import { mentionRoom, replyThread } from "./rooms.ts";
import { answerMessage, isFromPerson, messageEventFields, type MessageDeps, parseEvent } from "./turn.ts";

/** `@Duet …` in a channel or thread: a turn in the room, answered in the thread of the mention. */

const mentionSchema = z.object({ type: z.literal("app_mention"), ...messageEventFields });

const EMPTY_MENTION_HINT =
  "Hi! Ask me something after the mention, e.g. `@Duet what's in this repo?`, or use `/duet help` for the commands.";

/** `track` lets stop() wait for turns in flight and logs what they throw. */
export function registerMentions(app: App, deps: MessageDeps, track: (p: Promise<void>) => Promise<void>): void {
  app.event("app_mention", async ({ event, body }) => {
    await track(handleMention(event, body, deps));
  });
}

export async function handleMention(rawEvent: unknown, rawBody: unknown, deps: MessageDeps): Promise<void> {
  const parsed = parseEvent(mentionSchema, rawEvent, rawBody, "app_mention", deps.logger);
  if (!parsed) return;
  const e = parsed.event;
  if (!isFromPerson(e, deps.botUserId)) return;
  await answerMessage(deps, {
    eventId: parsed.eventId,
    place: parsed.place,
    kind: "app_mention",
    user: e.user,
    text: e.text,
    roomFor: (place) => mentionRoom(place, deps.scope),
    replyIn: replyThread,
    emptyHint: EMPTY_MENTION_HINT,
  });
}
