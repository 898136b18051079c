import { sanitizeChatText } from "../text/sanitize.ts";
import { PR_TITLE_MAX_CHARS } from "../wire/pr-schemas.ts";
import { PR_WORDS } from "../words/pr.ts";

/**
 * The words after `pr` in every front end (`/duet pr …` in Slack, the
 * `title:` option in Discord, `duet pr ROOM …` in the CLI), read once here:
 * the pull request's title, or nothing for Duet to name it after what changed.
 */

/** `title`: what the pull request is called (absent: Duet names it). `problem`: one line saying what was wrong; nothing is sent. */
export type PrArgs = { title?: string } | { problem: string };

/**
 * The title as typed, on one line: line breaks become spaces, control and
 * invisible characters go, runs of spaces shrink to one. The problem line
 * never quotes what was typed.
 */
export function readPrArgs(text: string): PrArgs {
  const title = sanitizeChatText(text).replace(/\s+/g, " ");
  if (!title) return {};
  if (title.length > PR_TITLE_MAX_CHARS) return { problem: PR_WORDS.tooLong(title.length, PR_TITLE_MAX_CHARS) };
  return { title };
}
