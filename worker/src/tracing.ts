import { NO_SPANS, otlpHeaders, Span, SpanExporter, type SpanSink, type TraceContext } from "@duet/shared";
import type { WorkerConfig } from "./config.ts";

/**
 * A room's spans and where they go. The Worker records spans with the small
 * model in shared/ and sends them as OTLP/HTTP JSON itself, rather than
 * bundling OpenTelemetry's SDK as the bots do: the SDK's batch processor
 * sends from Node timers and http that outlive the work, which a Durable
 * Object's request does not keep (only its waitUntil does); its context
 * managers and resource detectors would add to every isolate's start-up; and
 * a turn needs only "this span's parent is that one", which is passed by
 * hand. Sending happens a second after the
 * turn's answer is stored (with the spans of any turns since, in any room of
 * the isolate), kept alive by the Durable Object's waitUntil, so a slow or
 * dead collector costs a turn nothing and busy rooms share one request.
 */
export interface RoomTracing {
  /** Where the room's finished spans go (nowhere when OTEL_EXPORTER_OTLP_ENDPOINT is unset). */
  sink: SpanSink;
  /** Sends what the room's finished spans hold, in the background. */
  flush(): void;
}

export const WORKER_SERVICE = "duet-worker";

/** Tracing off: spans are made and dropped, nothing is sent. */
export const NO_TRACING: RoomTracing = { sink: NO_SPANS, flush: () => undefined };

/**
 * One exporter per collector for every room this isolate runs: workerd (and
 * Cloudflare) place many rooms' objects in one isolate, and a send is the
 * costly part of tracing (a fetch), so the rooms' spans of the last second
 * share one request instead of one each.
 */
const exporters = new Map<string, SpanExporter>();

export function roomTracing(config: WorkerConfig, waitUntil: (p: Promise<unknown>) => void): RoomTracing {
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return NO_TRACING;
  const key = `${endpoint}\n${config.OTEL_EXPORTER_OTLP_HEADERS ?? ""}\n${config.OTEL_BSP_SCHEDULE_DELAY}`;
  let exporter = exporters.get(key);
  if (!exporter) {
    exporter = new SpanExporter({ endpoint, headers: otlpHeaders(config.OTEL_EXPORTER_OTLP_HEADERS), service: WORKER_SERVICE, lingerMs: config.OTEL_BSP_SCHEDULE_DELAY });
    exporters.set(key, exporter);
  }
  const shared = exporter;
  return { sink: shared.add, flush: () => waitUntil(shared.flushSoon()) };
}

/** A turn's root span in the Worker: the GenAI convention's `invoke_agent`, under the caller's span when it sent one. */
export function agentSpan(tracing: RoomTracing, roomId: string, parent: TraceContext | null): Span {
  return new Span(tracing.sink, "invoke_agent duet", parent, {
    kind: "server",
    attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "duet", "gen_ai.conversation.id": roomId },
  });
}
