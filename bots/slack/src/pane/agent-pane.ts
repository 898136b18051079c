import { EMPTY_DM_HINT, PANE_WORDS, roomId, type SuggestedPrompt } from "@duet/shared";
import { type App, Assistant } from "@slack/bolt";
import { DIRECT_MESSAGE } from "../direct-messages.ts";
import { slackToPlain } from "../mrkdwn.ts";
import type { MessagePlace } from "../rooms.ts";
import { answerMessage, type MessageDeps, type MessageKind } from "../turn.ts";
import { PaneStatus } from "./pane-status.ts";
import { titleFromFirstAsk } from "./pane-title.ts";

/**
 * Slack's agent pane (the split view for AI apps), through bolt's Assistant:
 * a new conversation offers the suggested prompts; a message in it is a turn
 * through the same flow as a DM, in a room of its own (each conversation is
 * a thread of the person's DM with Duet); while the turn works the pane's
 * status names the command running; the conversation is titled from its
 * first ask. Bolt hands every message in a thread of a DM to the Assistant,
 * so with the pane on a thread in Duet's Messages tab is such a conversation.
 */

export interface PaneOptions {
  /** What a new conversation offers (SLACK_SUGGESTED_PROMPTS). */
  prompts: SuggestedPrompt[];
  /** How often the status is renewed while a turn works (default: the thread status's). */
  statusRenewMs?: number;
}

/** A conversation in the pane: its own room, under the DM's. */
export function paneRoom(place: MessagePlace): string {
  return roomId("slack", place.teamId, place.channel, place.threadTs ?? place.ts);
}

export function registerAgentPane(app: App, deps: MessageDeps, pane: PaneOptions, track: (p: Promise<void>) => Promise<void>): void {
  const assistant = new Assistant({
    threadStarted: async ({ setSuggestedPrompts, event, logger }) => {
      try {
        await setSuggestedPrompts({ prompts: pane.prompts, title: PANE_WORDS.promptsTitle });
      } catch (err) {
        logger.warn(`Suggested prompts could not be set in ${event.assistant_thread.channel_id}: ${(err as Error)?.message ?? err}`);
      }
    },
    // Duet does not use the channel the person is looking at; bolt's default would rewrite Duet's first message to keep it.
    threadContextChanged: async () => {},
    userMessage: async ({ event, body, client, setStatus, setTitle, logger }) => {
      const kind: MessageKind = {
        ...DIRECT_MESSAGE,
        label: "agent pane message",
        roomFor: paneRoom,
        replyIn: (place) => place.threadTs,
        emptyHint: EMPTY_DM_HINT,
        pane: true,
        turn: (place, threadTs) => {
          const text = slackToPlain((event as { text?: string }).text ?? "");
          let titled: Promise<void> | undefined;
          // The first of: the answer begins here (live), or this delivery's ask was answered (whole).
          const title = () => (titled ??= threadTs ? titleFromFirstAsk(client, setTitle, { channel: place.channel, threadTs, ts: place.ts, text }, logger) : Promise.resolve());
          return { status: new PaneStatus(setStatus, logger, pane.statusRenewMs, () => void title()), answered: title };
        },
      };
      await track(answerMessage(deps, kind, event, body));
    },
  });
  app.assistant(assistant);
}
