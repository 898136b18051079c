/**
 * For text that arrives in pieces: how far `text` may go out when its last word
 * is known to be whole, because `blank` follows it and is not written yet (the
 * model wrote "word " and the space waits for the text after it).
 *
 * `holdAt(text, end)` says where text must stop when it may go out up to `end`
 * (the first part of a secret or of a token); it is asked of the text with the
 * blank after it. Spaces may still turn into a line break (spaces before a
 * line break are dropped), so `lineHoldAt`, the holds that guard a secret or a
 * token going on over lines, is asked of the text with a line break after it
 * too: it should hold a part that gives something away (`ghp_0123`), not a
 * word that only ends in a letter a token could begin with, or nearly every
 * word would wait. Should one such letter go out and turn out the start of a
 * token, the live text stops growing and the final answer, redacted whole,
 * still shows. The earliest stop wins; text's full length when nothing holds.
 */
export function endBeforeBlank(text: string, blank: string, holdAt: HoldAt, lineHoldAt: HoldAt): number {
  const end = text.length;
  let at = Math.min(end, holdAt(text + blank, end + blank.length));
  if (!blank.includes("\n")) at = Math.min(at, lineHoldAt(`${text}\n`, end + 1));
  return at;
}

/** Where text must stop when it may go out up to `end`; `end` when nothing holds. */
export type HoldAt = (text: string, end: number) => number;
