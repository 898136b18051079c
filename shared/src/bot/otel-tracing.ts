import { type Context, diag, type DiagLogger, DiagLogLevel, ROOT_CONTEXT, type Span as OtelSpan, SpanKind as OtelSpanKind, SpanStatusCode, TraceFlags, trace } from "@opentelemetry/api";
import { type ExportResult, ExportResultCode } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { defaultResource, resourceFromAttributes } from "@opentelemetry/resources";
import { AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import { ExportReport } from "../trace/export-report.ts";
import { EXPORT_BUFFER_SPANS, EXPORT_TIMEOUT_MS, tracesUrl } from "../trace/exporter.ts";
import type { TracesConfig } from "../trace/otlp-settings.ts";
import type { BotTracing, SpanData, SpanKind, SpanTracer, TracerSpan } from "../trace/span.ts";
import type { TraceContext } from "../trace/traceparent.ts";
import { within } from "./within.ts";

/**
 * A bot's spans through OpenTelemetry's own SDK (Node only, imported by
 * `botTracing` when a collector is set: the Worker keeps its small exporter,
 * since the SDK's processors run on timers and Node's http, which a Durable
 * Object's request does not keep).
 * The flow still makes Duet's `Span`s; each starts an SDK span with the same
 * name, kind, attributes and parent, so the ids it shows (the `traceparent` the
 * Worker joins, the `ref` on an error) are the SDK span's, and its end hands
 * the SDK the final name, attributes and status. The SDK's batch processor
 * sends them as OTLP/HTTP JSON after they end, one request at a time, so a
 * slow or dead collector costs an ask nothing: at most EXPORT_BUFFER_SPANS
 * wait (more are dropped), each request gives up after EXPORT_TIMEOUT_MS
 * (the SDK's retries included), and failures reach the log as ExportReport
 * says, never as the SDK's own messages or stack traces.
 */

/** How long a stopping bot waits for its last spans to be taken: a collector answers in milliseconds, a dead one must not hold the stop. */
export const TRACES_STOP_MS = 2_000;
/** Spans in one export request: the SDK's default; a busy bot's second of turns is a few hundred at most. */
const EXPORT_BATCH_SPANS = 512;
/**
 * The batch processor's own deadline for one export, past the exporter's (which ends its retries by
 * EXPORT_TIMEOUT_MS): the processor never starts a second request while the first is still out.
 */
const BATCH_TIMEOUT_MS = EXPORT_TIMEOUT_MS * 2;

const KINDS: Record<SpanKind, OtelSpanKind> = { internal: OtelSpanKind.INTERNAL, server: OtelSpanKind.SERVER, client: OtelSpanKind.CLIENT };

/** OpenTelemetry's SDK exporting to `config`'s collector as `service`. */
export function otelTracing(config: TracesConfig, service: string, log?: (line: string) => void): BotTracing {
  const url = tracesUrl(config.endpoint);
  const report = new ExportReport(url, log);
  quietDiagnostics(report);
  const exporter = new ReportedExporter(new OTLPTraceExporter({ url, headers: config.headers, timeoutMillis: EXPORT_TIMEOUT_MS }), report);
  const provider = new BasicTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: service })),
    // Duet traces every turn, as its traceparent says (flags 01); a backend samples if it wants.
    sampler: new AlwaysOnSampler(),
    spanProcessors: [
      new BatchSpanProcessor(exporter, {
        maxQueueSize: EXPORT_BUFFER_SPANS,
        maxExportBatchSize: EXPORT_BATCH_SPANS,
        scheduledDelayMillis: config.delayMs,
        exportTimeoutMillis: BATCH_TIMEOUT_MS,
      }),
    ],
  });
  const tracer = provider.getTracer("duet");
  const sink: SpanTracer = {
    start: (name, parent, opts) => new SdkSpan(tracer.startSpan(name, { kind: KINDS[opts.kind], attributes: opts.attributes, startTime: opts.startMs }, parentContext(parent))),
  };
  let stopped: Promise<void> | undefined;
  return {
    sink,
    // The batch processor sends on its own schedule, delayMs after a span ends: an ask has nothing to start.
    flush: () => undefined,
    shutdown: () => (stopped ??= within(provider.shutdown().catch(() => undefined), TRACES_STOP_MS)),
  };
}

/** An SDK span behind one of Duet's: its ids are the SDK's; its end carries what the flow set meanwhile. */
class SdkSpan implements TracerSpan {
  readonly traceId: string;
  readonly spanId: string;

  constructor(readonly span: OtelSpan) {
    ({ traceId: this.traceId, spanId: this.spanId } = span.spanContext());
  }

  end(data: SpanData): void {
    this.span.updateName(data.name);
    this.span.setAttributes(data.attributes);
    if (data.error) this.span.setStatus({ code: SpanStatusCode.ERROR, message: data.error });
    this.span.end(data.endMs);
  }
}

/** The SDK context a span starts in: under its parent span in this process, or under a parent known by its ids (a traceparent the room kept). */
function parentContext(parent: TraceContext | null): Context {
  if (!parent) return ROOT_CONTEXT;
  if (parent instanceof SdkSpan) return trace.setSpan(ROOT_CONTEXT, parent.span);
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: parent.traceId, spanId: parent.spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });
}

/** The SDK's OTLP/HTTP exporter, with each failed request counted in the report (the batch is dropped, as the SDK does). */
class ReportedExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly report: ExportReport,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) this.report.lost(spans.length, failureOf(result.error));
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** Why a request failed, in words that hold no address or header: an HTTP status, a timeout, a socket error's code. */
function failureOf(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  if (typeof e?.code === "number") return `it answered HTTP ${e.code}`;
  if (e?.message === "Request timed out") return "it did not answer in time";
  if (typeof e?.code === "string" && /^E[A-Z_]+$/.test(e.code)) return `it could not be reached (${e.code})`;
  if (e?.message === "Export failed with retryable status") return "it answered busy (HTTP 429, 502, 503 or 504) to every try";
  return "it could not be reached";
}

/**
 * The SDK's diagnostics (a process-wide logger): what it would print can hold
 * stack traces and header values, so none of it reaches the log as written.
 * Spans it dropped from a full queue are counted in the report; the rest is
 * dropped, the failed requests being reported by ReportedExporter already.
 */
function quietDiagnostics(report: ExportReport): void {
  const quiet = () => undefined;
  const logger: DiagLogger = {
    warn: (message: string) => {
      const dropped = /^Dropped (\d+) spans because maxQueueSize reached/.exec(message);
      if (dropped) report.lost(Number(dropped[1]), "the queue is full (the collector is slow or down)");
    },
    error: quiet,
    info: quiet,
    debug: quiet,
    verbose: quiet,
  };
  diag.setLogger(logger, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
}
