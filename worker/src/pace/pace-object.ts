import { DurableObject } from "cloudflare:workers";
import { PACE_END_WAIT_MAX_MS, PACE_SHARED_MARGIN_MS } from "@duet/shared";

interface Slot {
  /** When the slot begins: decided, or (while it waits to hear the slot before it ended) the latest it may begin. */
  at: number;
  /** The process it was handed to. */
  holder: string;
  /** When its holder said its message was posted; null until then. */
  ended: number | null;
  /** Wakes the next slot's answer, held waiting for this end. */
  wake: (() => void) | null;
}

interface ChannelSlots {
  /** The channel's latest slots, oldest first: an end may be said after a later slot was handed out. */
  recent: Slot[];
  /** From here the channel no longer delays anyone and may be swept. */
  stale: number;
}

/** Channels are swept of stale entries once the map has grown past this, and again each time it doubles. */
const SWEEP_MIN = 256;
/** Slots kept per channel for their ends: more than the replicas that take a channel's slots in turn. */
const RECENT_MAX = 8;

/**
 * The channel slots of one scope (a Slack workspace whose bot runs as several
 * replicas): `slot` hands each caller the earliest moment an interval after
 * the channel's last slot, and says how long to wait for it. One object per
 * scope rather than per channel: the object stays warm for a busy workspace's
 * many channels (a new object per channel would be a cold start on each
 * channel's first message), and one workspace's new messages are few enough
 * (each channel at most one a second) for one object to answer them all.
 *
 * A slot after another process's slot is `PACE_SHARED_MARGIN_MS` later still
 * (a slot counts from when it was handed out, and one replica's call may
 * reach the platform later than another's), unless that process says its
 * message was posted (`end`) before the margin is out: then the slot is the
 * interval after that end, as one process counts its own. So the answer to
 * such a slot waits (at most until the margin is out) to hear the end. A
 * process asking again after its own slot needs no margin (it counts its
 * interval from the end of its own call).
 *
 * Kept in memory only: an object that is evicted or restarted forgets its
 * channels, which at worst lets one message per channel through early, and the
 * platform's 429 with Retry-After covers that. No row is written per slot.
 */
export class PaceSlots extends DurableObject<object> {
  private readonly channels = new Map<string, ChannelSlots>();
  private sweepAt = SWEEP_MIN;

  /** Reserves `channel`'s next slot for `holder`; the wait until it, in milliseconds. */
  async slot(channel: string, intervalMs: number, holder: string): Promise<number> {
    const { slot, after } = this.take(Date.now(), channel, intervalMs, holder);
    // The message before is another process's, not yet said to be posted: its end, heard before the margin
    // after its slot is out, brings this slot forward. Past that it would not, so the wait ends there.
    const hold = after && after.ended === null ? after.at + PACE_SHARED_MARGIN_MS - Date.now() : 0;
    if (after && hold > 0 && hold <= PACE_END_WAIT_MAX_MS) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, hold);
        after.wake = () => (clearTimeout(timer), resolve());
      });
      after.wake = null;
    }
    const now = Date.now();
    settle(now, slot, after, intervalMs);
    // The clock may have moved on since the slot was taken (a loaded runtime): a slot already begun is no wait, never a negative one.
    return Math.max(0, slot.at - now);
  }

  /** `holder`'s message in `channel` was posted now; false when no slot of its was waiting to hear it. */
  end(channel: string, holder: string): boolean {
    return this.ended(Date.now(), channel, holder);
  }

  /** The arithmetic of a slot whose answer does not wait, at a given moment (for tests). */
  reserve(now: number, channel: string, intervalMs: number, holder: string): number {
    const { slot, after } = this.take(now, channel, intervalMs, holder);
    settle(now, slot, after, intervalMs);
    return slot.at - now;
  }

  /** An end heard at a given moment (for tests): the holder's newest slot that began and has not ended. */
  ended(now: number, channel: string, holder: string): boolean {
    const recent = this.channels.get(channel)?.recent ?? [];
    const slot = recent.findLast((s) => s.holder === holder && s.ended === null && s.at <= now);
    if (!slot) return false;
    slot.ended = now;
    slot.wake?.();
    return true;
  }

  /** Channels kept (for tests). */
  get size(): number {
    return this.channels.size;
  }

  /** The new slot at its latest (the margin's arithmetic), and the other process's slot before it, whose end may bring it forward. */
  private take(now: number, channel: string, intervalMs: number, holder: string): { slot: Slot; after: Slot | null } {
    const kept = this.channels.get(channel);
    if (!kept && this.channels.size >= this.sweepAt) this.sweep(now);
    const last = kept?.recent.at(-1);
    const after = last && last.holder !== holder ? last : null;
    const gap = after ? intervalMs + PACE_SHARED_MARGIN_MS : intervalMs;
    const slot: Slot = { at: last ? Math.max(now, last.at + gap) : now, holder, ended: null, wake: null };
    const recent = [...(kept?.recent ?? []), slot].slice(-RECENT_MAX);
    this.channels.set(channel, { recent, stale: slot.at + intervalMs + PACE_SHARED_MARGIN_MS });
    return { slot, after };
  }

  private sweep(now: number): void {
    for (const [channel, kept] of this.channels) if (kept.stale <= now) this.channels.delete(channel);
    this.sweepAt = Math.max(SWEEP_MIN, this.channels.size * 2);
  }
}

/** A slot after another process's whose end was heard: the interval after that end, when sooner than its latest. */
function settle(now: number, slot: Slot, after: Slot | null, intervalMs: number): void {
  if (after?.ended == null) return;
  slot.at = Math.max(now, Math.min(slot.at, after.ended + intervalMs));
}
