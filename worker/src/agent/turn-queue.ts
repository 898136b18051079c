import { DuetError, ROOM_QUEUE_MAX } from "@duet/shared";

/**
 * One turn at a time per room, in arrival order. A Durable Object serialises
 * storage calls but not `fetch`, so without this two messages waiting on the
 * model would interleave and write history out of order.
 */
export class TurnQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  constructor(private readonly maxWaiting = ROOM_QUEUE_MAX) {}

  /** Runs `task` after every task queued before it; refuses (synchronously) when too many wait. */
  run<T>(task: () => Promise<T>): Promise<T> {
    if (this.waiting >= this.maxWaiting) {
      throw new DuetError("room_busy", `this room already has ${this.waiting} requests waiting`, {
        // Turns take seconds (model plus commands); a short wait lets the queue drain.
        retryAfterMs: 2_000,
      });
    }
    this.waiting++;
    const result = this.tail.then(() => {
      this.waiting--;
      return task();
    });
    // The chain must survive a failed task, or one error would block the room forever.
    this.tail = result.catch(() => undefined);
    return result;
  }
}
