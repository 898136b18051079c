import { ExportReport } from "./export-report.ts";
import { toOtlp } from "./otlp.ts";
import type { SpanData } from "./span.ts";

/**
 * Spans to an OTLP/HTTP JSON endpoint, in batches sent after the work that
 * made them. What it must never do is slow or fail that work: the buffer is
 * bounded (spans past it are dropped), one request is in flight at a time
 * (a slow collector holds one batch, not one per turn), each request has a
 * deadline, a failed batch is dropped rather than retried, and the failure
 * is logged at most once a minute (ExportReport).
 */

/** Spans kept waiting for a send: a few hundred turns' worth, a few hundred KB at most. */
export const EXPORT_BUFFER_SPANS = 2_000;
/** One export request's deadline: a slow collector is given up on, its batch dropped. */
export const EXPORT_TIMEOUT_MS = 5_000;
/** How long finished spans wait for the next turns' before a send, so one request carries several turns (OTEL_BSP_SCHEDULE_DELAY's default, the Worker's and the bots'). */
export const EXPORT_LINGER_MS = 1_000;

export interface ExporterOptions {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL (`/v1/traces` is added) . */
  endpoint: string;
  /** OTEL_EXPORTER_OTLP_HEADERS, parsed (an API key for a hosted backend). */
  headers?: Record<string, string>;
  /** The service.name of spans that carry none. */
  service: string;
  maxSpans?: number;
  timeoutMs?: number;
  /** `flushSoon` waits this long for more spans before it sends (0: it sends at once). */
  lingerMs?: number;
  fetch?: typeof fetch;
  now?: () => number;
  log?: (line: string) => void;
}

export class SpanExporter {
  private buffer: SpanData[] = [];
  private sending: Promise<void> | null = null;
  private lingering: Promise<void> | null = null;
  private readonly report: ExportReport;
  readonly url: string;

  constructor(private readonly opts: ExporterOptions) {
    this.url = tracesUrl(opts.endpoint);
    this.report = new ExportReport(this.url, opts.log, opts.now);
  }

  /** Keeps a finished span for the next send; past the buffer's bound it is dropped and counted. */
  readonly add = (span: SpanData): void => {
    if (this.buffer.length >= (this.opts.maxSpans ?? EXPORT_BUFFER_SPANS)) {
      this.report.lost(1, "the buffer is full (the collector is slow or down)");
      return;
    }
    this.buffer.push(span);
  };

  get waiting(): number {
    return this.buffer.length;
  }

  /**
   * Sends what is waiting; resolves when it is sent or dropped (never
   * rejects). While a send is in flight the spans wait for it, so at most one
   * batch is ever in the air.
   */
  flush(): Promise<void> {
    if (this.sending) return this.sending;
    if (!this.buffer.length) return Promise.resolve();
    this.sending = (async () => {
      try {
        while (this.buffer.length) await this.send(this.buffer.splice(0));
      } finally {
        this.sending = null;
      }
    })();
    return this.sending;
  }

  /**
   * Sends what is waiting once `lingerMs` has passed, with whatever was added
   * meanwhile; resolves when that send is done (never rejects). Asked again
   * while it waits, it answers the same wait: one send for all of them.
   */
  flushSoon(): Promise<void> {
    const linger = this.opts.lingerMs ?? 0;
    if (linger <= 0) return this.flush();
    this.lingering ??= new Promise<void>((resolve) => setTimeout(resolve, linger)).then(() => {
      this.lingering = null;
      return this.flush();
    });
    return this.lingering;
  }

  private async send(batch: SpanData[]): Promise<void> {
    const fetchImpl = this.opts.fetch ?? fetch;
    try {
      const res = await fetchImpl(this.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...this.opts.headers },
        body: JSON.stringify(toOtlp(batch, this.opts.service)),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? EXPORT_TIMEOUT_MS),
      });
      await res.body?.cancel().catch(() => undefined);
      if (!res.ok) this.report.lost(batch.length, `it answered HTTP ${res.status}`);
    } catch (err) {
      this.report.lost(batch.length, (err as Error)?.name === "TimeoutError" ? "it did not answer in time" : "it could not be reached");
    }
  }
}

/** OTEL_EXPORTER_OTLP_ENDPOINT is the base; traces go to its `/v1/traces`, as the OTLP exporter spec says. */
export function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, "")}/v1/traces`;
}

/**
 * OTEL_EXPORTER_OTLP_HEADERS (`key=value,key2=value2`, values percent-encoded)
 * as headers; a pair without `=` or with an empty key is skipped.
 */
export function otlpHeaders(raw: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (raw ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    const key = pair.slice(0, at).trim();
    let value = pair.slice(at + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      // Not percent-encoded after all: taken as written.
    }
    if (key) headers[key] = value;
  }
  return headers;
}
