import type { Timers } from "./throttle.ts";

/** A clock the test moves by hand; timers fire when it passes them. */
export class ManualTimers implements Timers {
  time = 0;
  private queue: { at: number; fn: () => void; id: number }[] = [];
  private seq = 0;
  now = () => this.time;
  setTimeout = (fn: () => void, ms: number) => {
    const id = ++this.seq;
    this.queue.push({ at: this.time + ms, fn, id });
    return id;
  };
  clearTimeout = (id: unknown) => {
    this.queue = this.queue.filter((t) => t.id !== id);
  };
  /** Timers set and not yet fired or cleared. */
  get pending(): number {
    return this.queue.length;
  }
  /** Moves the clock forward, firing due timers in order and letting the promises they start settle. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await settle();
      const due = this.queue.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.queue = this.queue.filter((t) => t !== due);
      this.time = due.at;
      due.fn();
    }
    this.time = end;
    await settle();
  }
}

/** Lets promise callbacks already queued run. */
export const settle = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};
