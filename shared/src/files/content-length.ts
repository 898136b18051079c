/**
 * An upload's Content-Length as the Worker and the local executor read it:
 * digits only (a sign, a fraction, a second value or a number past what a
 * byte count can be are refused with 400 at both ends).
 */

export const CONTENT_LENGTH_ERROR = "Content-Length must be a whole number of bytes";

/** The byte count `raw` declares, or null when it is not one. */
export function uploadLength(raw: string): number | null {
  const trimmed = raw.trim();
  if (!/^\d+$/.test(trimmed)) return null;
  const n = Number(trimmed);
  return Number.isSafeInteger(n) ? n : null;
}
