import { DuetError, ROOM_QUEUE_MAX } from "@duet/shared";

/** A place taken in the queue: it runs its work when every place taken before it is done. */
export interface QueuePlace {
  /** Gives the place its work (once); resolves with its result. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Gives the place up without running anything (what was to run could not be accepted). */
  cancel(): void;
  /** Places taken before this one and not yet done when it was taken (the running one included): 0 runs at once. */
  readonly ahead: number;
}

/**
 * One turn at a time per room, in arrival order. A Durable Object serialises
 * storage calls but not `fetch`, so without this two messages waiting on the
 * model would interleave and write history out of order. Admission is its own
 * synchronous step (`admit`), taken before anything is written for a turn: a
 * refused turn leaves nothing behind.
 */
export class TurnQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;
  /** Places taken and not yet done: waiting or running. */
  private held = 0;

  constructor(private readonly maxWaiting = ROOM_QUEUE_MAX) {}

  /** No place is taken: work admitted now runs at once. */
  get idle(): boolean {
    return this.held === 0;
  }

  /** Takes the next place, behind every place taken before it; refuses (room_busy) when too many wait. */
  admit(): QueuePlace {
    if (this.waiting >= this.maxWaiting) {
      // A refusal, not a "come back soon": with the line this long, asking again within seconds would only
      // race the others refused and reorder them, so no Retry-After is given and the bots tell the person at once.
      throw new DuetError("room_busy", `this room already has ${this.waiting} requests waiting, the most it holds`);
    }
    const ahead = this.held;
    this.waiting++;
    this.held++;
    let task: (() => Promise<unknown>) | null = null;
    let give: ((work: () => Promise<unknown>) => void) | null = null;
    const start = (work: () => Promise<unknown>) => {
      this.waiting--;
      return work();
    };
    // Work given in the same tick as the admission (the usual case) starts as soon as the place comes up.
    const result = this.tail.then(() => (task ? start(task) : new Promise<() => Promise<unknown>>((r) => (give = r)).then(start)));
    // The chain must survive a failed task, or one error would block the room forever.
    this.tail = result.catch(() => undefined).finally(() => this.held--);
    const once = (work: () => Promise<unknown>) => {
      if (task) throw new Error("a queue place runs one piece of work");
      task = work;
      give?.(work);
    };
    return {
      run: <T>(work: () => Promise<T>) => {
        once(work);
        return result as Promise<T>;
      },
      cancel: () => once(async () => undefined),
      ahead,
    };
  }

  /** Places taken whose work has not started yet. */
  get waitingCount(): number {
    return this.waiting;
  }

  /** Admits and runs `task` at once: the common case. */
  run<T>(task: () => Promise<T>): Promise<T> {
    return this.admit().run(task);
  }
}
