/**
 * Fitting command output into a chat message. People read the start (what ran) and
 * the end (the error, the summary) of long output, so the middle goes first.
 */

/** Share of the room given to the head; the tail gets the rest, since errors and summaries come last. */
const HEAD_SHARE = 0.4;

/** 1234567 → "1,234,567" without Intl, which differs between Node and workerd builds. */
export function formatCount(n: number): string {
  return String(Math.trunc(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

const plural = (n: number, word: string) => `${formatCount(n)} ${word}${n === 1 ? "" : "s"}`;

function omittedMarker(lines: number, chars: number, note: string): string {
  return `… ${plural(lines, "line")} (${plural(chars, "character")}) omitted${note ? `; ${note}` : ""} …`;
}

/** Lines a region touches: its newlines, plus the partial line it ends in. */
function linesIn(text: string, from: number, to: number): number {
  if (to <= from) return 0;
  let n = 0;
  for (let i = text.indexOf("\n", from); i >= 0 && i < to; i = text.indexOf("\n", i + 1)) n++;
  return text[to - 1] === "\n" ? n : n + 1;
}

export type HeadTail = { text: string; omittedChars: number; omittedLines: number };

/**
 * `text` unchanged if it fits in `maxChars`; otherwise about 40% from the start and 60%
 * from the end, cut at line boundaries where one is near, around a marker line such as
 * `… 1,234 lines (56,789 characters) omitted; full output attached …`. The result is at
 * most `maxChars` long. `note` ends the marker; pass "" when nothing is attached.
 */
export function headTail(text: string, maxChars: number, note = "full output attached"): HeadTail {
  if (text.length <= maxChars) return { text, omittedChars: 0, omittedLines: 0 };
  const max = Math.max(0, Math.floor(maxChars));
  // Size the marker for the largest counts it could show, so the real one always fits.
  const room = max - omittedMarker(linesIn(text, 0, text.length), text.length, note).length - 2;
  if (room < 2) {
    // Too small for the marker: keep what fits around a bare ellipsis.
    const keep = Math.max(0, max - 1);
    const head = Math.floor(keep * HEAD_SHARE);
    const tailStart = text.length - (keep - head);
    const kept = max === 0 ? "" : text.slice(0, head) + "…" + text.slice(tailStart);
    return { text: kept, omittedChars: tailStart - head, omittedLines: linesIn(text, head, tailStart) };
  }
  const headRoom = Math.floor(room * HEAD_SHARE);
  const tailRoom = room - headRoom;
  // Snap to line boundaries unless that would throw away more than half of the room.
  let headEnd = headRoom;
  const lastNl = headRoom > 0 ? text.lastIndexOf("\n", headRoom - 1) : -1;
  if (lastNl >= 0 && lastNl + 1 >= headRoom / 2) headEnd = lastNl + 1;
  let tailStart = text.length - tailRoom;
  const nextNl = text.indexOf("\n", tailStart - 1);
  if (nextNl >= 0 && nextNl + 1 - tailStart <= tailRoom / 2) tailStart = nextNl + 1;
  const omittedChars = tailStart - headEnd;
  const omittedLines = linesIn(text, headEnd, tailStart);
  const head = text.slice(0, headEnd);
  const marker = omittedMarker(omittedLines, omittedChars, note);
  return {
    text: `${head}${head === "" || head.endsWith("\n") ? "" : "\n"}${marker}\n${text.slice(tailStart)}`,
    omittedChars,
    omittedLines,
  };
}

/**
 * `headTail` for a screen: also at most `maxLines` lines (the marker is one of them),
 * since thousands of short lines bury an answer as surely as a few long ones. Lines are
 * kept about 40% from the start and 60% from the end, around the same marker.
 */
export function headTailLines(text: string, maxLines: number, maxChars: number, note = "full output attached"): HeadTail {
  const trailing = text.endsWith("\n");
  const lines = (trailing ? text.slice(0, -1) : text).split("\n");
  if (lines.length <= maxLines || maxLines < 3) return headTail(text, maxChars, note);
  const keep = maxLines - 1;
  const head = Math.floor(keep * HEAD_SHARE);
  const tail = keep - head;
  const omitted = lines.slice(head, lines.length - tail);
  const omittedChars = omitted.reduce((n, line) => n + line.length + 1, 0);
  const cut = [...lines.slice(0, head), omittedMarker(omitted.length, omittedChars, note), ...lines.slice(lines.length - tail)].join("\n") + (trailing ? "\n" : "");
  // Long lines among those kept: cut the whole text by characters instead, so there is one marker.
  if (cut.length > maxChars) return headTail(text, maxChars, note);
  return { text: cut, omittedChars, omittedLines: omitted.length };
}

/** Without a regex: /\n+$/ rescans a long run of newlines from every position in it. */
function trimTrailingNewlines(s: string): string {
  let end = s.length;
  while (end > 0 && (s[end - 1] === "\n" || s[end - 1] === "\r")) end--;
  return s.slice(0, end);
}

/**
 * One text for a person to read: stdout, then stderr after a `--- stderr ---` line when
 * both have something. Either alone is shown as it is; trailing newlines are dropped.
 */
export function combineOutput(stdout: string, stderr: string): string {
  const out = trimTrailingNewlines(stdout);
  const err = trimTrailingNewlines(stderr);
  if (err.trim() === "") return out.trim() === "" ? "" : out;
  if (out.trim() === "") return err;
  return `${out}\n--- stderr ---\n${err}`;
}
