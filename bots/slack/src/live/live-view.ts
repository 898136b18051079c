import type { LiveView } from "@duet/shared";
import { renderReply, type ReplyPlace } from "../render.ts";
import type { LivePlace, SlackLiveMessage } from "./live-message.ts";

/** Builds the live message for one answer (the bot's client, logger and streaming settings are bound in). */
export type LiveMessages = (place: LivePlace) => SlackLiveMessage;

/**
 * The chat flow's view of a live Slack answer: it ends as the reply renders in
 * `place` (a thread, or a slash command's channel), Run and Skip naming `room`.
 */
export function slackLiveView(live: SlackLiveMessage, secrets: readonly string[], room?: string, place: ReplyPlace = "thread"): LiveView {
  return {
    update: (answer) => live.update(answer),
    async finish(reply) {
      const ts = await live.finish(renderReply(reply, { secrets, place, room }));
      return ts ? { id: ts } : null;
    },
  };
}
