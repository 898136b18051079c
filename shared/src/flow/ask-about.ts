import { quoteMessage, ASK_ABOUT_QUESTION_MAX_CHARS, type QuotedMessage } from "../format/quoted-message.ts";
import { sanitizeChatText } from "../text/sanitize.ts";
import { ASK_ABOUT_WORDS } from "../words/ask-about.ts";
import { ask } from "./flow.ts";
import type { ChatSurface } from "./surface.ts";
import type { Asker, FlowDeps, Outcome } from "./types.ts";

/**
 * "Ask Duet" on a message: the person's question about someone's message,
 * asked in that place's room with the message quoted as data (its author
 * named). Both bots check the typed question here before they close the
 * modal, then ask through the one ask flow.
 */

/** What is wrong with a typed question, in one line; null when it may be asked. */
export function askAboutProblem(question: string | undefined | null): string | null {
  const q = sanitizeChatText(question ?? "");
  if (!q) return ASK_ABOUT_WORDS.empty;
  if (q.length > ASK_ABOUT_QUESTION_MAX_CHARS) return ASK_ABOUT_WORDS.tooLong(q.length, ASK_ABOUT_QUESTION_MAX_CHARS);
  return null;
}

/** Asks `question` about `msg` in the asker's room; the answer goes wherever `surface` posts (that message's thread). */
export async function askAbout(deps: FlowDeps, surface: ChatSurface, asker: Asker, question: string, msg: QuotedMessage): Promise<Outcome> {
  const problem = askAboutProblem(question);
  if (problem) {
    await surface.postPrivate({ kind: "hint", text: problem });
    return "failed";
  }
  if (!sanitizeChatText(msg.text)) {
    await surface.postPrivate({ kind: "hint", text: ASK_ABOUT_WORDS.noText });
    return "failed";
  }
  return ask(deps, surface, asker, quoteMessage(sanitizeChatText(question), { ...msg, text: sanitizeChatText(msg.text) }));
}
