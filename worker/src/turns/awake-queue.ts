import { TurnQueue, type QueuePlace } from "./turn-queue.ts";

/**
 * How often a busy room's alarm fires. An alarm keeps the object in memory
 * while a turn nobody awaits runs, and after an eviction it wakes a fresh
 * instance that resumes the turns left pending (Cloudflare evicts an object
 * after about 70 s without an event).
 */
export const KEEP_AWAKE_MS = 30_000;

/**
 * The room's turn queue, keeping the room awake while it holds work: each
 * place taken arms the room's alarm (one alarm write per KEEP_AWAKE_MS at
 * most, however many turns arrive), and the alarm is armed again while any
 * place is still held.
 */
export class AwakeQueue {
  private readonly queue = new TurnQueue();
  /** Places queued or running in this instance. */
  private busy = 0;
  private awakeUntil = 0;

  constructor(
    /** Arms the room's alarm (a Durable Object alarm: no row is written). */
    private readonly setAlarm: (at: number) => Promise<void>,
  ) {}

  /** No place is taken: work admitted now runs at once. */
  get idle(): boolean {
    return this.queue.idle;
  }

  /** Places waiting behind the one running. */
  get waitingCount(): number {
    return this.queue.waitingCount;
  }

  /** Takes the room's next place in the queue (room_busy when full) and keeps the room awake until it is done. */
  admit(): QueuePlace {
    const place = this.queue.admit();
    this.busy++;
    this.keepAwake();
    let settled = false;
    const settle = () => {
      if (!settled) this.busy--;
      settled = true;
    };
    return {
      run: (work) => {
        const task = place.run(work);
        void task.finally(settle).catch(() => undefined);
        return task;
      },
      cancel: () => {
        place.cancel();
        settle();
      },
      ahead: place.ahead,
    };
  }

  /** After the room's alarm fired: arm the next one while places remain. */
  afterAlarm(): void {
    this.awakeUntil = 0;
    if (this.busy > 0) this.keepAwake();
  }

  private keepAwake(): void {
    const now = Date.now();
    if (this.awakeUntil > now) return;
    this.awakeUntil = now + KEEP_AWAKE_MS;
    this.setAlarm(this.awakeUntil).catch((err) => console.error("the room's alarm could not be set", err));
  }
}
