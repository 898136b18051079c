import { DurableObject } from "cloudflare:workers";

/**
 * The slots of one chat channel: `slot` hands each caller the earliest moment
 * at least `intervalMs` after the slot handed out before it, and says how long
 * to wait for it. One object per channel: a channel's slots depend on nothing
 * else, so no map is kept or swept, and a busy channel never queues another
 * channel's callers behind its own (a Durable Object answers one call at a time).
 *
 * The next free moment is kept in memory only: an object that is evicted or
 * restarted forgets it, which at worst lets one message through early, and
 * the platform's 429 with Retry-After covers that. No row is written per slot.
 */
export class PaceSlots extends DurableObject<object> {
  private nextAt = 0;

  /** Reserves the channel's next slot; the wait until it, in whole milliseconds. */
  async slot(intervalMs: number): Promise<number> {
    return this.reserve(Date.now(), intervalMs);
  }

  /** The arithmetic, at a given moment (for tests). */
  reserve(now: number, intervalMs: number): number {
    const at = Math.max(now, this.nextAt);
    this.nextAt = at + intervalMs;
    return at - now;
  }
}
