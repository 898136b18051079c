export { TRACEPARENT_HEADER, TRACE_REF_CHARS, parseTraceparent, formatTraceparent, newTraceId, newSpanId, traceRef, type TraceContext } from "./traceparent.ts";
export { Span, NO_SPANS, errorName, type SpanData, type SpanSink, type SpanKind, type AttributeValue, type SpanTracer, type TracerSpan } from "./span.ts";
export { toOtlp, fromOtlp, type OtlpTraces } from "./otlp.ts";
export { SpanExporter, otlpHeaders, tracesUrl, EXPORT_BUFFER_SPANS, EXPORT_TIMEOUT_MS, EXPORT_LINGER_MS, type ExporterOptions } from "./exporter.ts";
export { ExportReport, EXPORT_LOG_EVERY_MS } from "./export-report.ts";
export { otlpFields, tracesConfig, type TracesConfig } from "./otlp-settings.ts";
