import { DuetError, ROOM_QUEUE_MAX } from "@duet/shared";

/**
 * One turn at a time per room, in arrival order. A Durable Object serialises
 * storage calls but not `fetch`, so without this two messages waiting on the
 * model would interleave and write history out of order.
 */
export class TurnQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private waitingCount = 0;
  private running = false;

  constructor(private readonly maxWaiting = ROOM_QUEUE_MAX) {}

  get waiting(): number {
    return this.waitingCount;
  }

  get busy(): boolean {
    return this.running || this.waitingCount > 0;
  }

  /** Runs `task` after every task queued before it; refuses when too many wait. */
  run<T>(task: () => Promise<T>): Promise<T> {
    if (this.waitingCount >= this.maxWaiting) {
      throw new DuetError("room_busy", `this room already has ${this.waitingCount} requests waiting`, {
        // Turns take seconds (model plus commands); a short wait lets the queue drain.
        retryAfterMs: 2_000,
      });
    }
    this.waitingCount++;
    const result = this.tail.then(async () => {
      this.waitingCount--;
      this.running = true;
      try {
        return await task();
      } finally {
        this.running = false;
      }
    });
    // The chain must survive a failed task, or one error would block the room forever.
    this.tail = result.catch(() => undefined);
    return result;
  }
}
