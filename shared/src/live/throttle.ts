/**
 * Shows a message that keeps changing (a live answer) through a platform call
 * that is rate limited: at most one call per `intervalMs`, and each call carries
 * the latest state, so states that came in between are skipped, never queued.
 * `finish` delivers the final state and resolves once it is shown.
 *
 * The final state does not wait out the interval: it goes as soon as the call in
 * flight has ended (and any Retry-After has passed). The interval paces a message
 * that keeps changing, one call per message per interval; the final state is the
 * message's last call, so it adds one call where the platform's limits (Slack's
 * per method and workspace, Discord's per channel bucket) have room for it, and
 * the person sees the complete answer a second sooner.
 *
 * The interval is counted from the end of the previous call, not its start: the
 * platform counts calls as they arrive, and the only moment known to be after
 * an arrival is the answer. Counting from the start would let a slow call and a
 * quick one arrive closer together than the interval.
 *
 * A call that fails with a wait (a 429's Retry-After, through `retryAfterMs`)
 * is tried again with the latest state after that wait, so a rate limit loses
 * nothing; any other failure is reported and the next state tries again.
 *
 * The call right after the first one that succeeded may go at once
 * (`afterFirstMs`): the first call creates the message (a new message, a
 * stream's start), which the platform counts apart from the changes to it, so
 * the answer's next words need not wait out a whole interval behind its first.
 *
 * A call that must first wait its turn (a new message in a busy channel) takes
 * the newest state when the turn comes, through the `newest` it is handed: the
 * states pushed meanwhile, the final one too, replace the one it began with,
 * and the final state taken that way counts as shown once the call succeeds.
 */

export interface Timers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface ThrottleOptions {
  /** Least time between the end of one call and the start of the next. */
  intervalMs: number;
  /** Least time between the first call that succeeded and the next one (default: intervalMs). */
  afterFirstMs?: number;
  timers?: Timers;
  /** How long a failure asks to wait before trying again (a 429), or undefined when waiting cannot help. */
  retryAfterMs?: (err: unknown) => number | undefined;
  /** A failure that waiting cannot fix, or one that kept failing; the state it carried is not shown. */
  onError?: (err: unknown) => void;
  /** Tries per state before giving up on a failure that asks to wait (default 5). */
  maxAttempts?: number;
}

const DEFAULT_ATTEMPTS = 5;

export class LatestThrottle<T> {
  private latest: { state: T } | null = null;
  private inFlight = false;
  private timer: unknown = null;
  /** Earliest time the next live state may be shown: the interval after the last call. */
  private readyAt = 0;
  /** Earliest time any call may start, the final one too: a 429's Retry-After. */
  private retryAt = 0;
  private attempts = 0;
  /** Calls that succeeded: the interval after the first is afterFirstMs. */
  private shownCount = 0;
  private final: { state: T; settle: (shown: boolean) => void } | null = null;
  private closed = false;
  private readonly timers: Timers;

  constructor(
    /** Shows `state`, or what `newest()` returns when called (the latest state pushed since, taken from the queue). */
    private readonly deliver: (state: T, newest: () => T) => Promise<void>,
    private readonly opts: ThrottleOptions,
  ) {
    this.timers = opts.timers ?? realTimers;
  }

  /** A new state to show; shown at once when the interval allows, else when it does (if still the latest). */
  push(state: T): void {
    if (this.closed || this.final) return;
    this.latest = { state };
    this.schedule();
  }

  /**
   * Shows `state` as the last one, as soon as no call is in flight and no
   * Retry-After is pending (the interval is not waited out), and resolves true
   * once it is shown, false when it could not be (the failure went to onError).
   */
  finish(state: T): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    this.final?.settle(false);
    return new Promise<boolean>((resolve) => {
      this.final = { state, settle: resolve };
      this.latest = { state };
      this.attempts = 0;
      this.schedule();
    });
  }

  /** Stops showing anything more; a call in flight finishes, a waiting finish resolves false. */
  close(): void {
    this.closed = true;
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    this.latest = null;
    this.final?.settle(false);
    this.final = null;
  }

  private schedule(): void {
    if (this.closed || this.inFlight || !this.latest) return;
    const at = this.final ? this.retryAt : Math.max(this.readyAt, this.retryAt);
    const wait = at - this.timers.now();
    // A finish while a live state waits for the interval: the final state may go sooner.
    if (this.timer !== null) {
      if (!this.final) return;
      this.timers.clearTimeout(this.timer);
      this.timer = null;
    }
    if (wait <= 0) return void this.run();
    this.timer = this.timers.setTimeout(() => {
      this.timer = null;
      this.run();
    }, wait);
  }

  private run(): void {
    const next = this.latest;
    if (!next || this.closed) return;
    this.latest = null;
    this.inFlight = true;
    let shown = next.state;
    const newest = () => {
      if (this.latest) shown = this.latest.state;
      this.latest = null;
      return shown;
    };
    this.deliver(next.state, newest).then(
      () => this.settled(shown, null),
      (err: unknown) => this.settled(shown, err),
    );
  }

  private settled(state: T, err: unknown): void {
    this.inFlight = false;
    const now = this.timers.now();
    const firstShown = err === null && this.shownCount++ === 0;
    this.readyAt = now + (firstShown ? (this.opts.afterFirstMs ?? this.opts.intervalMs) : this.opts.intervalMs);
    if (err === null) {
      this.attempts = 0;
      if (this.final && this.final.state === state && !this.latest) {
        this.final.settle(true);
        this.final = null;
      }
    } else {
      this.attempts += 1;
      const wait = this.opts.retryAfterMs?.(err);
      if (wait !== undefined && this.attempts < (this.opts.maxAttempts ?? DEFAULT_ATTEMPTS)) {
        // Try again after the wait (and, for a live state, the interval), with whatever is latest by then.
        this.retryAt = now + wait;
        if (!this.latest) this.latest = { state };
      } else {
        this.attempts = 0;
        this.opts.onError?.(err);
        if (this.final && this.final.state === state && !this.latest) {
          this.final.settle(false);
          this.final = null;
        }
      }
    }
    this.schedule();
  }
}
