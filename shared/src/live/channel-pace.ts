import { PACE_ASK_TIMEOUT_MS, PACE_INTERVAL_MS } from "../wire/pace.ts";
import { realTimers, type Timers } from "./throttle.ts";

/**
 * New messages in one channel, one at a time and at most one per interval:
 * Slack takes about one message a second per channel (a thread's replies count
 * toward their channel), Discord five per five seconds. A burst of answers in
 * one channel then reaches the platform spaced, first come first served, while
 * other channels go on at once.
 *
 * Only calls that create a message go through here; edits, a stream's appends
 * and stop, reactions and ephemeral messages are not new channel messages.
 *
 * The interval is counted from the end of the previous call, not its start:
 * the platform counts a message when it arrives, and the only moment known to
 * be after the arrival is the answer (a busy event loop may send a call late).
 * A call that hangs holds its channel for `holdMaxMs` at most.
 *
 * Across processes (replicas), `slots` is the pace they share: when a call's
 * turn comes here, the channel's next slot is asked for (one round trip per
 * new message) and waited for before the call. If it does not answer within
 * `askTimeoutMs` or fails, the call goes on this process's pace alone:
 * delivery never blocks on the shared pace, and the platform's 429 with
 * Retry-After covers a rare overlap.
 */

/** The pace several processes share: the wait before a new message in `channel` may start. */
export interface SharedSlots {
  wait(channel: string, intervalMs: number): Promise<number>;
  /**
   * The new message this process was given a slot for was posted (its call
   * ended): the next process's slot in `channel` may count from now. Told
   * without waiting for an answer; a failure only leaves the margin in force.
   */
  ended?(channel: string): void;
}

export interface ChannelPaceOptions {
  /** Least time between the end of one creating call in a channel and the start of the next. */
  intervalMs: number;
  timers?: Timers;
  /** Longest a call keeps its channel waiting (a request that never answers). */
  holdMaxMs?: number;
  /** The pace shared with other processes; without it, this process's alone. */
  slots?: SharedSlots;
  /** Longest wait for `slots` to answer before going on without it (PACE_ASK_TIMEOUT_MS). */
  askTimeoutMs?: number;
  /** Told how long each call waited for its turn (ms), from `run` to its start: for the bot's metrics. */
  onWait?: (ms: number) => void;
}

/**
 * One new message a second per channel on both platforms: Slack's limit, and
 * within Discord's five per five seconds (a steady second apart, never a burst
 * of five that then stalls the channel for five seconds).
 */
export const CHANNEL_MESSAGE_INTERVAL_MS = PACE_INTERVAL_MS;
/** A call still unanswered after this long no longer keeps its channel: past any Retry-After a platform sends in practice. */
export const PACE_HOLD_MAX_MS = 30_000;
/** Channels idle past their interval are forgotten once the map has grown past this, and again each time it doubles. */
const SWEEP_MIN = 64;

interface Lane {
  /** Calls waiting their turn, first come first served. */
  waiting: (() => void)[];
  busy: boolean;
  /** Earliest start of the next call: the interval after the last one ended. */
  readyAt: number;
  timer: unknown;
}

export class ChannelPace {
  private readonly lanes = new Map<string, Lane>();
  private readonly timers: Timers;
  private sweepAt = SWEEP_MIN;

  constructor(private readonly opts: ChannelPaceOptions) {
    this.timers = opts.timers ?? realTimers;
  }

  /**
   * Runs `create` (a call that posts a new message in `channel`) in its turn,
   * and settles as it does. `channel` names the platform's channel (with its
   * workspace or server where ids could clash).
   */
  run<R>(channel: string, create: () => Promise<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const lane = this.lane(channel);
      const asked = this.timers.now();
      lane.waiting.push(() => this.start(channel, lane, create, asked).then(resolve, reject));
      this.pump(channel, lane);
    });
  }

  /**
   * Runs `create`, a new message that completes one just posted in `channel`
   * (Slack: the share of an answer's files, `files.completeUploadExternal`,
   * which has its own rate tier, not `chat.postMessage`'s one a second per
   * channel), at once, as the second of a short burst the platform allows.
   * The channel's next call still waits its interval, counted from this one's
   * end. The shared pace is not asked: a replica's message that lands within
   * the second after it meets the platform's Retry-After.
   */
  async follow<R>(channel: string, create: () => Promise<R>): Promise<R> {
    try {
      return await create();
    } finally {
      const lane = this.lane(channel);
      lane.readyAt = Math.max(lane.readyAt, this.timers.now() + this.opts.intervalMs);
    }
  }

  /** Channels with a call waiting or running, or still within their interval (for tests). */
  get size(): number {
    return this.lanes.size;
  }

  private lane(channel: string): Lane {
    let lane = this.lanes.get(channel);
    if (!lane) {
      if (this.lanes.size >= this.sweepAt) this.sweep();
      lane = { waiting: [], busy: false, readyAt: 0, timer: null };
      this.lanes.set(channel, lane);
    }
    return lane;
  }

  private pump(channel: string, lane: Lane): void {
    if (lane.busy || lane.timer !== null) return;
    const wait = lane.readyAt - this.timers.now();
    if (!lane.waiting.length) {
      if (wait <= 0) this.lanes.delete(channel);
      return;
    }
    if (wait > 0) {
      lane.timer = this.timers.setTimeout(() => {
        lane.timer = null;
        this.pump(channel, lane);
      }, wait);
      return;
    }
    lane.busy = true;
    lane.waiting.shift()!();
  }

  private async start<R>(channel: string, lane: Lane, create: () => Promise<R>, asked: number): Promise<R> {
    await this.sharedTurn(channel);
    const shared = this.opts.slots;
    this.opts.onWait?.(this.timers.now() - asked);
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      this.timers.clearTimeout(hold);
      lane.busy = false;
      lane.readyAt = this.timers.now() + this.opts.intervalMs;
      this.pump(channel, lane);
    };
    const hold = this.timers.setTimeout(release, this.opts.holdMaxMs ?? PACE_HOLD_MAX_MS);
    try {
      return await create();
    } finally {
      release();
      // Said after every call the shared pace gave a slot to (or would have): the next replica need not wait a margin for it.
      shared?.ended?.(channel);
    }
  }

  /** Waits for the channel's slot in the shared pace, if there is one and it answers in time. */
  private async sharedTurn(channel: string): Promise<void> {
    const slots = this.opts.slots;
    if (!slots) return;
    const waitMs = await new Promise<number>((resolve) => {
      const late = this.timers.setTimeout(() => resolve(0), this.opts.askTimeoutMs ?? PACE_ASK_TIMEOUT_MS);
      const settle = (ms: number) => (this.timers.clearTimeout(late), resolve(ms));
      slots.wait(channel, this.opts.intervalMs).then(settle, () => settle(0));
    });
    const capped = Math.min(waitMs, this.opts.holdMaxMs ?? PACE_HOLD_MAX_MS);
    if (capped > 0) await new Promise<void>((resolve) => this.timers.setTimeout(resolve, capped));
  }

  private sweep(): void {
    const now = this.timers.now();
    for (const [channel, lane] of this.lanes) {
      if (!lane.busy && lane.timer === null && !lane.waiting.length && lane.readyAt <= now) this.lanes.delete(channel);
    }
    this.sweepAt = Math.max(SWEEP_MIN, this.lanes.size * 2);
  }
}
