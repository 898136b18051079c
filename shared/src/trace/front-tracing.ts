import { z } from "zod";
import { optionalText } from "../config/env-config.ts";
import { type FlowTracing, NO_SPANS } from "./span.ts";
import { otlpHeaders, SpanExporter } from "./exporter.ts";

/**
 * Tracing for a front end (a bot, the CLI): the same small exporter the
 * Worker uses, so a turn's spans from every hop are one model, and the ask
 * knows its trace id at once for the `ref` on an error.
 */

/** The OTLP variables, as every package reads them (the Worker's schema has the same two). */
export const otlpFields = {
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalText.pipe(z.url({ error: "OTEL_EXPORTER_OTLP_ENDPOINT must be a URL" }).optional()),
  OTEL_EXPORTER_OTLP_HEADERS: optionalText,
};

/** Where a front end sends its spans: OTEL_EXPORTER_OTLP_ENDPOINT and its headers. */
export interface TracesConfig {
  endpoint: string;
  headers: Record<string, string>;
}

/** The config's `traces`, or undefined (nothing sent) when no endpoint is set. */
export function tracesConfig(env: { OTEL_EXPORTER_OTLP_ENDPOINT?: string; OTEL_EXPORTER_OTLP_HEADERS?: string }): TracesConfig | undefined {
  return env.OTEL_EXPORTER_OTLP_ENDPOINT ? { endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT, headers: otlpHeaders(env.OTEL_EXPORTER_OTLP_HEADERS) } : undefined;
}

/** A front end's tracing: spans batched and sent after each ask, in the background; none when unset. */
export function frontTracing(config: TracesConfig | undefined, service: string, log?: (line: string) => void): FlowTracing {
  if (!config) return { sink: NO_SPANS, flush: () => undefined };
  const exporter = new SpanExporter({ endpoint: config.endpoint, headers: config.headers, service, ...(log ? { log } : {}) });
  return { sink: exporter.add, flush: () => void exporter.flush() };
}
