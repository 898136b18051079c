/**
 * At most `max` commands run at once; the rest wait in arrival order. A bounded line:
 * past `maxWaiting` the executor answers 503 rather than piling up work it will
 * finish long after the Worker has given up.
 */
export class BusyError extends Error {}

export class Gate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly max: number,
    private readonly maxWaiting: number,
  ) {}

  /** Resolves with a release function once a slot is free. */
  async enter(): Promise<() => void> {
    if (this.running >= this.max) {
      if (this.waiting.length >= this.maxWaiting) throw new BusyError(`executor busy: ${this.running} commands running and ${this.waiting.length} waiting`);
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next in line, so `running` stays counted.
      if (next) next();
      else this.running--;
    };
  }

  get stats(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }
}
