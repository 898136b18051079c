import { ASK_ORDER_WAIT_MAX_MS, type AskTicket } from "@duet/shared";

/** Asks remembered per process as having reached the room: more than a burst's asks in flight at once. */
const KEEP_PER_PROCESS = 256;
/** Processes remembered: a few replicas, restarted now and then. */
const KEEP_PROCESSES = 32;

/**
 * The order a front end's asks join the room's line in (ASK_ORDER_HEADER). A
 * process sends a room its asks in the order they were asked, each naming the
 * one before; requests sent a moment apart may still reach the room in the
 * other order, so an ask waits here until the one it follows has reached the
 * room (admitted, refused or replayed), at most ASK_ORDER_WAIT_MAX_MS (the one
 * before may never come). Kept in memory: an evicted room forgets it, and the
 * next asks then wait at most that bound.
 */
export class AskLine {
  /** Per process, the numbers of its asks that reached the room, oldest first. */
  private readonly reachedBy = new Map<string, Set<number>>();
  /** Asks waiting for the one they follow, by `process:number` of that one. */
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(private readonly waitMaxMs = ASK_ORDER_WAIT_MAX_MS) {}

  /** Resolves once the ask `t` follows has reached the room, or the wait ran out. */
  async behind(t: AskTicket): Promise<void> {
    if (t.after === undefined || this.reachedBy.get(t.proc)?.has(t.after)) return;
    const key = `${t.proc}:${t.after}`;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(go, this.waitMaxMs);
      function go() {
        clearTimeout(timer);
        resolve();
      }
      this.waiting.set(key, [...(this.waiting.get(key) ?? []), go]);
    });
    this.waiting.delete(key);
  }

  /** Ask `t` reached the room: the one following it may be admitted. */
  reached(t: AskTicket): void {
    let seen = this.reachedBy.get(t.proc);
    if (!seen) {
      if (this.reachedBy.size >= KEEP_PROCESSES) this.reachedBy.delete(this.reachedBy.keys().next().value!);
      seen = new Set();
      this.reachedBy.set(t.proc, seen);
    }
    seen.add(t.seq);
    if (seen.size > KEEP_PER_PROCESS) seen.delete(seen.values().next().value!);
    for (const go of this.waiting.get(`${t.proc}:${t.seq}`) ?? []) go();
  }
}
