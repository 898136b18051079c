import { ASK_ABOUT_QUESTION_MAX_CHARS, ASK_ABOUT_WORDS } from "@duet/shared";
import { z } from "zod";

/**
 * The "Ask Duet" modal: one question field, pre-filled, and where the
 * message is (channel, ts, thread) in its private metadata, which Slack
 * hands back, signed, with the submission to whichever replica gets it.
 */

/** The message shortcut's callback id (declared in the app's manifest). */
export const ASK_SHORTCUT_ID = "ask_duet";
/** The modal's callback id, for its submission. */
export const ASK_MODAL_ID = "ask_duet_modal";
export const QUESTION_BLOCK = "question";
export const QUESTION_ACTION = "question_input";

export const askPlaceSchema = z.object({ c: z.string().regex(/^[CDG][A-Z0-9]+$/), ts: z.string().regex(/^\d+\.\d+$/), th: z.string().regex(/^\d+\.\d+$/).optional() });
export type AskPlace = z.infer<typeof askPlaceSchema>;

const title = { type: "plain_text" as const, text: ASK_ABOUT_WORDS.modalTitle };

export function questionModal(place: AskPlace) {
  return {
    type: "modal" as const,
    callback_id: ASK_MODAL_ID,
    title,
    submit: { type: "plain_text" as const, text: ASK_ABOUT_WORDS.submit },
    close: { type: "plain_text" as const, text: ASK_ABOUT_WORDS.close },
    private_metadata: JSON.stringify(place),
    blocks: [
      {
        type: "input" as const,
        block_id: QUESTION_BLOCK,
        label: { type: "plain_text" as const, text: ASK_ABOUT_WORDS.label },
        element: { type: "plain_text_input" as const, action_id: QUESTION_ACTION, multiline: true, initial_value: ASK_ABOUT_WORDS.prefill, max_length: ASK_ABOUT_QUESTION_MAX_CHARS },
      },
    ],
  };
}

/** A modal with one line and only a Close button: what a person sees when the message cannot be asked about. */
export function noticeModal(text: string) {
  return { type: "modal" as const, title, close: { type: "plain_text" as const, text: "Close" }, blocks: [{ type: "section" as const, text: { type: "mrkdwn" as const, text } }] };
}
