/**
 * Invisible characters that arrive with pasted text (zero-width spaces and joiners, the
 * BOM, soft hyphens) or hide what text says (bidirectional overrides).
 */
export const INVISIBLE = /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;
/** C0 and C1 control characters except tab (\t) and newline (\n). */
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/**
 * Text as a person meant it: Windows and old Mac line ends become \n, invisible and
 * control characters (except newline and tab) are removed, and the ends are trimmed.
 * The bots call it after stripping the bot mention.
 */
export function sanitizeChatText(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(INVISIBLE, "").replace(CONTROL, "").trim();
}
