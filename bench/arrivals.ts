/**
 * When things reach a fake platform, keyed by what they are ("react:C1:123.4:eyes",
 * "defer:<interaction id>"). A benchmark registers what it expects before it sends
 * the event, then awaits the arrival time (performance.now() in this process, the
 * same clock the event's departure was read from). Arrivals nobody waits for are
 * dropped, so bulk runs do not grow memory.
 */
export class Arrivals {
  private readonly waiting = new Map<string, { resolve: (t: number) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  /** Markers awaited in what the bot sends (`text:<marker>` arrivals). */
  private readonly markers = new Set<string>();

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

  /** Awaits the first call at the fake whose content holds `marker` (see `textSeen`). */
  expectText(marker: string, timeoutMs = 30_000): Promise<number> {
    this.markers.add(marker);
    return this.expect(`text:${marker}`, timeoutMs);
  }

  /** A call's content reached the fake; `content` is only read while a marker is awaited. */
  textSeen(content: () => string, at = performance.now()): void {
    if (this.markers.size === 0) return;
    const text = content();
    for (const m of this.markers) {
      if (!this.waiting.has(`text:${m}`)) this.markers.delete(m);
      else if (text.includes(m)) {
        this.markers.delete(m);
        this.arrive(`text:${m}`, at);
      }
    }
  }
}
