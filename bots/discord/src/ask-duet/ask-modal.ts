import { ASK_ABOUT_QUESTION_MAX_CHARS, ASK_ABOUT_WORDS } from "@duet/shared";
import { LabelBuilder, ModalBuilder, TextInputBuilder, TextInputStyle } from "discord.js";

/**
 * The "Ask Duet" modal: one question field, pre-filled, and the message it is
 * about in its custom id, which Discord hands back with the submission (the
 * message's own text is kept by the bot meanwhile: `asked-messages.ts`).
 */

/** A modal's custom id: this prefix, then the message's id (a snowflake). */
const MODAL_PREFIX = "ask_duet:";
export const QUESTION_INPUT = "question";

export function questionModal(messageId: string): ModalBuilder {
  const question = new TextInputBuilder()
    .setCustomId(QUESTION_INPUT)
    .setStyle(TextInputStyle.Paragraph)
    .setValue(ASK_ABOUT_WORDS.prefill)
    // Discord's client enforces the limit; the bot checks again, as a modified client can send more.
    .setMaxLength(ASK_ABOUT_QUESTION_MAX_CHARS)
    .setRequired(true);
  return new ModalBuilder()
    .setCustomId(`${MODAL_PREFIX}${messageId}`)
    .setTitle(ASK_ABOUT_WORDS.modalTitle)
    .addLabelComponents(new LabelBuilder().setLabel(ASK_ABOUT_WORDS.label).setTextInputComponent(question));
}

export function isQuestionModal(customId: string): boolean {
  return customId.startsWith(MODAL_PREFIX);
}

/** The id of the message a submitted modal asks about; null when the custom id is not one of Duet's. */
export function askedMessageId(customId: string): string | null {
  const id = customId.slice(MODAL_PREFIX.length);
  return isQuestionModal(customId) && /^\d{1,20}$/.test(id) ? id : null;
}
