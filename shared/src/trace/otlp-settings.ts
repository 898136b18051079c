import { z } from "zod";
import { intVar, optionalText } from "../config/env-config.ts";
import { EXPORT_LINGER_MS, otlpHeaders } from "./exporter.ts";

/**
 * The OTLP variables, as the Worker and both bots read them: where spans go
 * (OTEL_EXPORTER_OTLP_ENDPOINT; unset, nothing is sent), with which headers,
 * and how long finished spans wait to be sent with the next ones.
 */
export const otlpFields = {
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalText.pipe(z.url({ error: "OTEL_EXPORTER_OTLP_ENDPOINT must be a URL" }).optional()),
  OTEL_EXPORTER_OTLP_HEADERS: optionalText,
  /**
   * How long finished spans wait before they are sent with those that end meanwhile (OpenTelemetry's batch
   * delay, in ms): the Worker's rooms in an isolate, a bot's turns, share one request. `pnpm dev` sets 0 so
   * `duet trace` finds a turn at once.
   */
  OTEL_BSP_SCHEDULE_DELAY: intVar("OTEL_BSP_SCHEDULE_DELAY", EXPORT_LINGER_MS, 0, 60_000),
};

/** Where a bot sends its spans: OTEL_EXPORTER_OTLP_ENDPOINT, its headers, and the batch delay. */
export interface TracesConfig {
  endpoint: string;
  headers: Record<string, string>;
  /** OTEL_BSP_SCHEDULE_DELAY. */
  delayMs: number;
}

/** The config's `traces`, or undefined (nothing sent) when no endpoint is set. */
export function tracesConfig(env: { OTEL_EXPORTER_OTLP_ENDPOINT?: string; OTEL_EXPORTER_OTLP_HEADERS?: string; OTEL_BSP_SCHEDULE_DELAY: number }): TracesConfig | undefined {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT) return undefined;
  return { endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT, headers: otlpHeaders(env.OTEL_EXPORTER_OTLP_HEADERS), delayMs: env.OTEL_BSP_SCHEDULE_DELAY };
}
