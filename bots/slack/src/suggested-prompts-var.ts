import { PANE_WORDS, type SuggestedPrompt } from "@duet/shared";
import { z } from "zod";

/**
 * SLACK_SUGGESTED_PROMPTS: the prompts a new agent-pane conversation offers,
 * written `Title = message | Title = message`. A prompt without `=` is its own
 * title. Unset or blank: Duet's own prompts (PANE_WORDS.defaultPrompts).
 */

/** Slack shows at most four suggested prompts in a conversation. */
export const PROMPTS_MAX = 4;
/** A title is one line in the pane; a message is a question, not a document. */
export const PROMPT_TITLE_MAX_CHARS = 100;
export const PROMPT_MESSAGE_MAX_CHARS = 1_000;

const words = PANE_WORDS.promptsVar;

export const suggestedPromptsVar = z
  .string()
  .optional()
  .transform((raw, ctx): SuggestedPrompt[] => {
    if (!raw?.trim()) return [...PANE_WORDS.defaultPrompts];
    const parts = raw.split("|");
    const fail = (message: string) => {
      ctx.addIssue({ code: "custom", message });
      return z.NEVER;
    };
    if (parts.length > PROMPTS_MAX) return fail(words.tooMany(parts.length, PROMPTS_MAX));
    const prompts: SuggestedPrompt[] = [];
    for (const [i, part] of parts.entries()) {
      const at = part.indexOf("=");
      const title = (at < 0 ? part : part.slice(0, at)).trim();
      const message = (at < 0 ? part : part.slice(at + 1)).trim();
      if (!title || !message) return fail(words.empty(i + 1));
      if (title.length > PROMPT_TITLE_MAX_CHARS) return fail(words.tooLong(i + 1, "title", PROMPT_TITLE_MAX_CHARS));
      if (message.length > PROMPT_MESSAGE_MAX_CHARS) return fail(words.tooLong(i + 1, "message", PROMPT_MESSAGE_MAX_CHARS));
      prompts.push({ title, message });
    }
    return prompts;
  });
