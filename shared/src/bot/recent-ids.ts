/**
 * Remembers event ids this process has already started on, so a platform's
 * redelivery of an event (Slack's retries, a Discord message replayed on a
 * resumed gateway) does not start a second answer. It is only a fast path: a
 * restarted bot or another replica does not share it; there the Worker's
 * delivery claims (delivery-claims.ts) keep the answer single.
 */

/** Slack retries an event three times over ~5 minutes; keep ids a little longer. */
export const DEDUPE_TTL_MS = 10 * 60 * 1000;
/** Bounds memory under a flood of distinct events; the oldest ids go first. */
export const DEDUPE_MAX_IDS = 10_000;

export class RecentIds {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly ttlMs = DEDUPE_TTL_MS,
    private readonly maxIds = DEDUPE_MAX_IDS,
    private readonly now: () => number = Date.now,
  ) {}

  /** True the first time an id is offered within the TTL, false for repeats. */
  first(id: string): boolean {
    const t = this.now();
    this.expire(t);
    if (this.seen.has(id)) return false;
    this.seen.set(id, t);
    if (this.seen.size > this.maxIds) {
      const oldest = this.seen.keys().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
    return true;
  }

  /** Lets the id count as new again (it was used again, or the work it stood for failed). */
  forget(id: string): void {
    this.seen.delete(id);
  }

  get size(): number {
    return this.seen.size;
  }

  private expire(t: number): void {
    // Map keeps insertion order, so the oldest entries come first.
    for (const [id, at] of this.seen) {
      if (t - at < this.ttlMs) break;
      this.seen.delete(id);
    }
  }
}
