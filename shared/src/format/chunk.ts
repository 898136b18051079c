/**
 * Splitting long replies into chat-sized messages (Discord: 2,000 characters, Slack
 * section text: 3,000). A split inside a ``` block closes the block in one message
 * and reopens it, with the same opening line (```bash), in the next, so each message
 * renders as code on its own.
 *
 * A "fence line" is a line whose first non-blank characters are ```; fence lines
 * toggle in and out of a code block. State is tracked over each message exactly as
 * it will be rendered, so every message has an even number of fence lines even when
 * a hard split lands in an odd place.
 */

/** Below this a message cannot hold a reopened fence, a closing fence and some text. */
export const MIN_CHUNK_CHARS = 20;

/** One message: `reopen` and `close` are fence lines added by the split; `body` is the original text. */
export type ChunkPart = { reopen: string; body: string; close: string };

const FENCE_LINE = /^[ \t]*```/;
/** Room kept for a closing fence: a newline and ```. */
const CLOSE_RESERVE = 4;
/** Least original text per message, so a long opening line cannot stall the split. */
const MIN_BODY = 8;
/** Splits at a blank line, line end or space only if the message is at least this full; else a hard split wastes less. */
const BLANK_LINE_MIN_FILL = 0.5;
const SOFT_MIN_FILL = 0.3;

/** The code block still open after `text[from, to)`, read as it renders (`from` starts a line). */
function fenceAfter(text: string, from: number, to: number, open: string | null): string | null {
  for (const line of text.slice(from, to).split("\n")) {
    if (FENCE_LINE.test(line)) open = open === null ? line.trimEnd() : null;
  }
  return open;
}

/** The opening line to repeat; a very long one is replaced by a bare ``` so text still fits. */
function reopenLine(opener: string, maxChars: number): string {
  const room = Math.min(80, maxChars - CLOSE_RESERVE - MIN_BODY - 1);
  return opener.length <= room ? opener : "```";
}

/**
 * A cut made mid-line must not leave the next message starting with ``` (an inline
 * "run ```ls```" would turn into a fence). Step back before the spaces and backticks.
 */
function avoidFenceStart(text: string, pos: number, cut: number): number {
  if (text[cut - 1] === "\n" || !FENCE_LINE.test(text.slice(cut, cut + 80))) return cut;
  let c = cut;
  while (c > pos && (text[c - 1] === " " || text[c - 1] === "\t" || text[c - 1] === "`")) c--;
  if (c > pos && text[c - 1] === "\n") return c; // a real fence line in the original: a fine place to split
  const space = text.slice(pos, c).lastIndexOf(" "); // the space before the word that precedes the ```
  if (space > 0 && !FENCE_LINE.test(text.slice(pos + space + 1, pos + space + 81))) return pos + space + 1;
  return c - 1 > pos ? c - 1 : cut;
}

/** Where to end the message that starts at `pos` and may hold `budget` characters of text. */
function chooseCut(text: string, pos: number, budget: number): number {
  const limit = Math.min(text.length, pos + budget);
  if (limit === text.length) return limit;
  // Search a window only: lastIndexOf on the whole text would rescan it for every message.
  const window = text.slice(pos, limit);
  const blank = window.lastIndexOf("\n\n");
  if (blank >= 0 && blank + 2 >= budget * BLANK_LINE_MIN_FILL) return pos + blank + 2;
  const eol = window.lastIndexOf("\n");
  if (eol >= 0 && eol + 1 >= budget * SOFT_MIN_FILL) return pos + eol + 1;
  const space = window.lastIndexOf(" ");
  if (space >= 0 && space + 1 >= budget * SOFT_MIN_FILL) return avoidFenceStart(text, pos, pos + space + 1);
  let hard = limit;
  // Never split a surrogate pair (an emoji would become two broken characters).
  const code = text.charCodeAt(hard);
  if (code >= 0xdc00 && code <= 0xdfff && hard - 1 > pos) hard--;
  return avoidFenceStart(text, pos, hard);
}

/**
 * The split of `text` into messages of at most `maxChars`, with the fence lines each
 * message adds. The bodies, joined, are exactly `text`. Exported for tests and for
 * callers that want to know which fences were added.
 */
export function chunkParts(text: string, maxChars: number): ChunkPart[] {
  if (!Number.isInteger(maxChars) || maxChars < MIN_CHUNK_CHARS) {
    throw new RangeError(`chunkMessage: maxChars must be an integer of at least ${MIN_CHUNK_CHARS}, got ${maxChars}`);
  }
  const parts: ChunkPart[] = [];
  let pos = 0;
  let open: string | null = null;
  while (pos < text.length) {
    const reopen = open === null ? "" : reopenLine(open, maxChars) + "\n";
    if (reopen.length + text.length - pos <= maxChars) {
      const body = text.slice(pos);
      const close = closeFor(body, fenceAfter(text, pos, text.length, open));
      if (reopen.length + body.length + close.length <= maxChars) {
        parts.push({ reopen, body, close });
        break;
      }
    }
    let cut = chooseCut(text, pos, maxChars - reopen.length - CLOSE_RESERVE);
    let end = fenceAfter(text, pos, cut, open);
    if (end !== null && text[cut - 1] === "\n") {
      // Don't end a message on an opening fence line: it would show an empty block.
      const body = text.slice(pos, cut);
      const lastLine = body.lastIndexOf("\n", body.length - 2) + 1;
      if (lastLine > 0 && body.slice(lastLine).trimEnd() === end) {
        cut = pos + lastLine;
        end = fenceAfter(text, pos, cut, open);
      }
    }
    const body = text.slice(pos, cut);
    parts.push({ reopen, body, close: closeFor(body, end) });
    open = end;
    pos = cut;
  }
  return parts;
}

function closeFor(body: string, open: string | null): string {
  if (open === null) return "";
  return body.endsWith("\n") ? "```" : "\n```";
}

/**
 * Splits `text` into messages of at most `maxChars` (≥ 20), preferring blank lines,
 * then line ends, then spaces, then a hard split. A split inside a ``` block closes it
 * and reopens it in the next message with the same opening line. Empty text gives [];
 * pieces that are only whitespace are left out (chat platforms reject blank messages).
 */
export function chunkMessage(text: string, maxChars: number): string[] {
  return chunkParts(text, maxChars)
    .filter((p) => p.body.trim() !== "")
    .map((p) => p.reopen + p.body + p.close);
}
