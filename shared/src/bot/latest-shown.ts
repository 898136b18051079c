/**
 * What this process last showed in a message it edits again (a proposal whose
 * Run and Skip become "ran by …" one at a time), so two quick decisions on one
 * message keep each other's line even before the platform's copy catches up.
 * Only a fast path: another replica reads the message as the platform has it.
 */

/** Messages remembered; the oldest goes first. A proposal is decided within minutes, so a few hundred is plenty. */
export const LATEST_SHOWN_KEPT = 500;

export class LatestShown<T> {
  private readonly shown = new Map<string, T>();

  constructor(private readonly kept = LATEST_SHOWN_KEPT) {}

  get(key: string): T | undefined {
    return this.shown.get(key);
  }

  set(key: string, value: T): void {
    this.shown.delete(key);
    this.shown.set(key, value);
    if (this.shown.size > this.kept) this.shown.delete(this.shown.keys().next().value!);
  }
}
