/**
 * A collector that fails, in the log: the spans lost are counted and said at
 * most once per EXPORT_LOG_EVERY_MS, in one line that names the endpoint's
 * host only (its path or query could hold a key). Both exporters (the
 * Worker's own, the bots' OpenTelemetry SDK) report through it.
 */

/** A collector that keeps failing is reported once a minute, not once a turn. */
export const EXPORT_LOG_EVERY_MS = 60_000;

export class ExportReport {
  private lastLogAt = Number.NEGATIVE_INFINITY;
  /** Spans lost since the last line. */
  private dropped = 0;

  constructor(
    private readonly url: string,
    private readonly log: (line: string) => void = console.warn,
    private readonly now: () => number = Date.now,
  ) {}

  /** `count` spans were lost (to a full buffer or a failed request) because of `why`. */
  lost(count: number, why: string): void {
    this.dropped += count;
    const now = this.now();
    if (now - this.lastLogAt < EXPORT_LOG_EVERY_MS) return;
    this.lastLogAt = now;
    this.log(`traces: ${this.dropped} span(s) dropped: the OTLP endpoint at ${hostOf(this.url)} failed: ${why}`);
    this.dropped = 0;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "?";
  }
}
