/**
 * Questions to one room leave this process in the order people asked them.
 * A front end takes a place when the question arrives (before it looks up
 * names or files, calls whose answers come back in any order); the ask waits
 * until the asks placed before it were admitted by the room (its first answer
 * came back), then goes. So a busy channel's questions join the room's line in
 * the order they were asked, and are told their places and answered in it.
 *
 * A place never waits longer than ASK_ORDER_WAIT_MAX_MS for the one before it:
 * an ask that never reaches the Worker, or a front end that never asks (an
 * empty mention), holds the others back that long at most.
 */

/**
 * Longest wait for the ask before. Admission takes a round trip to the room
 * (tens of milliseconds; a room's very first request, seconds on a busy
 * machine), and an ask that failed lets the next go at once; a longer wait
 * would only hold a channel's questions behind one that hangs.
 */
export const ASK_ORDER_WAIT_MAX_MS = 5_000;

export interface AskPlace {
  /** Resolves when the asks placed before this one were admitted (or the wait ran out). */
  ready(): Promise<void>;
  /** This ask was admitted (or failed, or was never sent): the next one may go. Idempotent. */
  admitted(): void;
}

export class AskOrder {
  /** Per room, the newest place's admission: the next place waits for it. */
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly waitMaxMs = ASK_ORDER_WAIT_MAX_MS) {}

  /** Takes the next place for `room`, synchronously, behind every place taken before it. */
  take(room: string): AskPlace {
    const before = this.tails.get(room);
    let admit!: () => void;
    const mine = new Promise<void>((resolve) => (admit = resolve));
    this.tails.set(room, mine);
    // The last place admitted leaves nothing behind: a quiet room costs no memory.
    void mine.then(() => {
      if (this.tails.get(room) === mine) this.tails.delete(room);
    });
    return {
      ready: () => (before ? within(before, this.waitMaxMs) : Promise.resolve()),
      admitted: () => admit(),
    };
  }

  /** Rooms with a place not yet admitted (for tests and metrics). */
  get rooms(): number {
    return this.tails.size;
  }
}

/** Resolves when `p` does or after `ms`, whichever is first; the timer never outlives it. */
function within(p: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
