import type { TracesConfig } from "../trace/otlp-settings.ts";
import { type BotTracing, NO_SPANS } from "../trace/span.ts";

export type { BotTracing };

/**
 * A bot's tracing (`@duet/shared/otel`): off when no collector is set, else
 * OpenTelemetry's SDK (`otel-tracing.ts`), imported only then: the SDK is some
 * 250 modules that a bot without a collector would load and keep for nothing
 * (about 1.3 MiB of an idle built bot's RSS, bench/NOTES.md).
 */

/** No tracing: spans are made and dropped, no SDK is loaded or started, no timer runs. */
export const TRACING_OFF: BotTracing = { sink: NO_SPANS, flush: () => undefined, shutdown: () => Promise.resolve() };

/** The bot's tracing: OpenTelemetry's SDK exporting to `config`'s collector as `service`; off when no endpoint is set. */
export async function botTracing(config: TracesConfig | undefined, service: string, log?: (line: string) => void): Promise<BotTracing> {
  if (!config) return TRACING_OFF;
  const { otelTracing } = await import("./otel-tracing.ts");
  return otelTracing(config, service, log);
}
