import { DuetError } from "@duet/shared";

/** The longest cursor: a turn's seq, 1 to 2^53 - 1 (16 digits). */
const CURSOR = /^[1-9][0-9]{0,15}$/;

/**
 * `?before=` of `GET /messages`: the `before` a previous page answered (a
 * turn's number), or undefined for the newest page. Anything else (empty,
 * negative, a fraction, letters, past 2^53 - 1) is a 400 that says what a
 * cursor looks like.
 */
export function beforeCursor(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = CURSOR.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n)) {
    throw new DuetError("invalid_request", "invalid request", {
      details: { before: ["before must be the `before` a previous page of messages answered: a whole number from 1 to 9007199254740991"] },
    });
  }
  return n;
}
