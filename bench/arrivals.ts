/**
 * When things reach a fake platform, keyed by what they are ("react:C1:123.4:eyes",
 * "defer:<interaction id>"). A benchmark registers what it expects before it sends
 * the event, then awaits the arrival time (performance.now() in this process, the
 * same clock the event's departure was read from). Arrivals nobody waits for are
 * dropped, so bulk runs do not grow memory.
 */
export class Arrivals {
  private readonly waiting = new Map<string, { resolve: (t: number) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();

  expect(key: string, timeoutMs = 30_000): Promise<number> {
    const p = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(key);
        reject(new Error(`nothing arrived for ${key} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(key, { resolve, reject, timer });
    });
    // A sample that fails early leaves its other expectations unawaited; their timeout must not crash the run.
    p.catch(() => undefined);
    return p;
  }

  arrive(key: string, at = performance.now()): void {
    const w = this.waiting.get(key);
    if (!w) return;
    this.waiting.delete(key);
    clearTimeout(w.timer);
    w.resolve(at);
  }
}
