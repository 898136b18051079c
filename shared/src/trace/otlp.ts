import type { AttributeValue, SpanData, SpanKind } from "./span.ts";

/**
 * OTLP/HTTP JSON (opentelemetry-proto's `ExportTraceServiceRequest` in its
 * JSON mapping: hex ids, times as decimal nanosecond strings, 64-bit integers
 * as strings), written and read back. Read back by the local collector of
 * `pnpm dev` and by the tests' fake collector.
 */

type OtlpValue = { stringValue: string } | { intValue: string } | { doubleValue: number } | { boolValue: boolean };
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpAttribute[];
  status: { code: number; message?: string };
}
export interface OtlpTraces {
  resourceSpans: { resource: { attributes: OtlpAttribute[] }; scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[] }[];
}

const KINDS: Record<SpanKind, number> = { internal: 1, server: 2, client: 3 };
const STATUS_ERROR = 2;

function valueOf(v: AttributeValue): OtlpValue {
  if (typeof v === "boolean") return { boolValue: v };
  if (typeof v === "number") return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  return { stringValue: v };
}

const nanos = (ms: number) => `${Math.round(ms)}000000`;

/** The spans as one export request, one resource per service. */
export function toOtlp(spans: SpanData[], defaultService: string): OtlpTraces {
  const byService = new Map<string, SpanData[]>();
  for (const s of spans) {
    const service = s.service ?? defaultService;
    const list = byService.get(service);
    if (list) list.push(s);
    else byService.set(service, [s]);
  }
  return {
    resourceSpans: [...byService].map(([service, list]) => ({
      resource: { attributes: [{ key: "service.name", value: { stringValue: service } }] },
      scopeSpans: [
        {
          scope: { name: "duet" },
          spans: list.map((s) => ({
            traceId: s.traceId,
            spanId: s.spanId,
            ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
            name: s.name,
            kind: KINDS[s.kind],
            startTimeUnixNano: nanos(s.startMs),
            endTimeUnixNano: nanos(s.endMs),
            attributes: Object.entries(s.attributes).map(([key, v]) => ({ key, value: valueOf(v) })),
            status: s.error ? { code: STATUS_ERROR, message: s.error } : { code: 0 },
          })),
        },
      ],
    })),
  };
}

function readValue(v: Record<string, unknown> | undefined): AttributeValue | undefined {
  if (!v) return undefined;
  if (typeof v.stringValue === "string") return v.stringValue;
  if (typeof v.boolValue === "boolean") return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (typeof v.doubleValue === "number") return v.doubleValue;
  return undefined;
}

const millis = (ns: unknown) => (typeof ns === "string" || typeof ns === "number" ? Number(BigInt(String(ns)) / 1_000_000n) : 0);
const kindOf = (n: unknown): SpanKind => (n === 2 ? "server" : n === 3 ? "client" : "internal");

/** The spans of an export request (anything it holds that is not a span is skipped, not an error). */
export function fromOtlp(body: unknown): SpanData[] {
  const out: SpanData[] = [];
  const resources = (body as OtlpTraces | null)?.resourceSpans;
  if (!Array.isArray(resources)) return out;
  for (const r of resources) {
    const service = r?.resource?.attributes?.find((a) => a?.key === "service.name");
    for (const scope of Array.isArray(r?.scopeSpans) ? r.scopeSpans : []) {
      for (const s of Array.isArray(scope?.spans) ? scope.spans : []) {
        if (typeof s?.traceId !== "string" || typeof s?.spanId !== "string" || typeof s?.name !== "string") continue;
        const attributes: Record<string, AttributeValue> = {};
        for (const a of Array.isArray(s.attributes) ? s.attributes : []) {
          const v = readValue(a?.value as Record<string, unknown>);
          if (typeof a?.key === "string" && v !== undefined) attributes[a.key] = v;
        }
        try {
          out.push({
            traceId: s.traceId,
            spanId: s.spanId,
            ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
            name: s.name,
            kind: kindOf(s.kind),
            startMs: millis(s.startTimeUnixNano),
            endMs: millis(s.endTimeUnixNano),
            attributes,
            ...(s.status?.code === STATUS_ERROR ? { error: s.status.message ?? "error" } : {}),
            ...(service ? { service: String(readValue(service.value as Record<string, unknown>)) } : {}),
          });
        } catch {
          // A time that is not a number: not a span this reader can place.
        }
      }
    }
  }
  return out;
}
