/**
 * The work a bot has started and not finished (answers being written), so
 * stopping can let it finish instead of cutting a reply in half. A failure is
 * reported through `report` and never thrown: one broken handler must not take
 * the connection, or the others, down with it.
 */
/**
 * How long a stopping bot lets answers in flight finish: shorter than the 10 s
 * `pnpm dev` (scripts/dev.ts) waits before it kills, so a bot ends on its own.
 */
export const DRAIN_MS = 8_000;

export class InFlight {
  private readonly work = new Set<Promise<void>>();

  constructor(private readonly report: (line: string) => void) {}

  /** Tracks `p`; the returned promise settles with it and never rejects. */
  track(p: Promise<void>, what = "a handler"): Promise<void> {
    const settled = p.catch((err: unknown) => this.report(`${what} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`));
    this.work.add(settled);
    void settled.finally(() => this.work.delete(settled));
    return settled;
  }

  get size(): number {
    return this.work.size;
  }

  /** Waits for the tracked work to finish, for at most `graceMs`. */
  async drain(graceMs: number): Promise<void> {
    if (this.work.size === 0 || graceMs <= 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.allSettled([...this.work]), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
  }
}
