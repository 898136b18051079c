/**
 * Code fences for chat. Slack and Discord both close a ``` block at the next ```
 * anywhere in the text, so output that itself prints ``` (a README, a markdown
 * file) would end the block early and spill the rest as formatted text.
 */

/** Shown inside the block when a command printed nothing, so the reply is never an empty box. */
export const NO_OUTPUT = "(no output)";

const ZERO_WIDTH_SPACE = "\u200b";

/** Breaks every run of three or more backticks (``` → `\u200b``) so it cannot open or close a fence. */
export function escapeFences(text: string): string {
  return text.replace(/`(?=``)/g, "`" + ZERO_WIDTH_SPACE);
}

/** Info strings are a language name; anything else (spaces, backticks) is dropped rather than trusted. */
function safeLang(lang: string | undefined): string {
  return lang && /^[A-Za-z0-9_+.#-]{1,30}$/.test(lang) ? lang : "";
}

/**
 * `text` inside a ``` fenced block, optionally tagged with `lang` (```bash). A trailing
 * newline is dropped (the closing fence brings its own); whitespace-only text shows
 * `(no output)`.
 */
export function codeBlock(text: string, lang?: string): string {
  const body = text.trim() === "" ? NO_OUTPUT : escapeFences(text.endsWith("\n") ? text.slice(0, -1) : text);
  return "```" + safeLang(lang) + "\n" + body + "\n```";
}
