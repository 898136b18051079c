import { DurableObject } from "cloudflare:workers";
import { PACE_SHARED_MARGIN_MS } from "@duet/shared";

interface LastSlot {
  /** When the channel's last slot began. */
  at: number;
  /** The process it was handed to. */
  holder: string;
  /** From here the entry no longer delays anyone and may be swept. */
  stale: number;
}

/** Channels are swept of stale entries once the map has grown past this, and again each time it doubles. */
const SWEEP_MIN = 256;

/**
 * The channel slots of one scope (a Slack workspace whose bot runs as several
 * replicas): `slot` hands each caller the earliest moment an interval after
 * the channel's last slot, and says how long to wait for it. One object per
 * scope rather than per channel: the object stays warm for a busy workspace's
 * many channels (a new object per channel would be a cold start on each
 * channel's first message), and one workspace's new messages are few enough
 * (each channel at most one a second) for one object to answer them all.
 *
 * A slot after another process's slot is `PACE_SHARED_MARGIN_MS` later still:
 * a slot counts from when it was handed out, and one replica's call may reach
 * the platform later than another's. A process asking again after its own
 * slot needs no margin (it counts its interval from the end of its own call).
 *
 * Kept in memory only: an object that is evicted or restarted forgets its
 * channels, which at worst lets one message per channel through early, and the
 * platform's 429 with Retry-After covers that. No row is written per slot.
 */
export class PaceSlots extends DurableObject<object> {
  private readonly channels = new Map<string, LastSlot>();
  private sweepAt = SWEEP_MIN;

  /** Reserves `channel`'s next slot for `holder`; the wait until it, in milliseconds. */
  async slot(channel: string, intervalMs: number, holder: string): Promise<number> {
    return this.reserve(Date.now(), channel, intervalMs, holder);
  }

  /** The arithmetic, at a given moment (for tests). */
  reserve(now: number, channel: string, intervalMs: number, holder: string): number {
    const last = this.channels.get(channel);
    if (!last && this.channels.size >= this.sweepAt) this.sweep(now);
    const gap = last && last.holder !== holder ? intervalMs + PACE_SHARED_MARGIN_MS : intervalMs;
    const at = last ? Math.max(now, last.at + gap) : now;
    this.channels.set(channel, { at, holder, stale: at + intervalMs + PACE_SHARED_MARGIN_MS });
    return at - now;
  }

  /** Channels kept (for tests). */
  get size(): number {
    return this.channels.size;
  }

  private sweep(now: number): void {
    for (const [channel, last] of this.channels) if (last.stale <= now) this.channels.delete(channel);
    this.sweepAt = Math.max(SWEEP_MIN, this.channels.size * 2);
  }
}
