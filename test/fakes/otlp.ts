import { fromOtlp, type SpanData } from "@duet/shared";
import { listen, readBody, sendJson, sleep, type Listening } from "./http.ts";

/**
 * A fake OTLP/HTTP collector on 127.0.0.1: it keeps every span sent to
 * `/v1/traces` (JSON), and can be made slow (each request held `delayMs`)
 * or failing (each answered `status`). Its `url` is what
 * OTEL_EXPORTER_OTLP_ENDPOINT is set to.
 */
export interface FakeCollector extends Listening {
  spans: SpanData[];
  /** Requests seen, with the headers each carried and the resources (their attributes, as written) whose spans it held. */
  requests: { headers: Record<string, string | string[] | undefined>; bytes: number; resources: Record<string, unknown>[] }[];
  /** Each request is answered after this long (0: at once). */
  delayMs: number;
  /** Each request is answered with this status (200: taken). */
  status: number;
  trace(traceId: string): SpanData[];
  /**
   * What sent `service`'s spans, each kind once: the OpenTelemetry exporter's user agent on the requests that
   * carried them, and the SDK their resource names (neither, for the Worker's own exporter).
   */
  sentBy(service: string): Sender[];
  /** Waits until `test` holds for the spans collected, or fails naming `what`. */
  waitFor(test: (spans: SpanData[]) => boolean, what: string, timeoutMs?: number): Promise<void>;
}

export interface Sender {
  userAgent?: string;
  sdk?: unknown;
  language?: unknown;
}

export async function startFakeCollector(): Promise<FakeCollector> {
  const collector: Partial<FakeCollector> = { spans: [], requests: [], delayMs: 0, status: 200 };
  const server = await listen(async (req, res) => {
    const body = await readBody(req);
    collector.requests!.push({ headers: req.headers, bytes: Buffer.byteLength(body), resources: resourcesOf(body) });
    if (collector.delayMs) await sleep(collector.delayMs);
    if (req.method !== "POST" || req.url !== "/v1/traces") return sendJson(res, 404, { error: "not found" });
    if (collector.status !== 200) return sendJson(res, collector.status!, { error: "refused" });
    collector.spans!.push(...fromOtlp(JSON.parse(body)));
    sendJson(res, 200, {});
  });
  return Object.assign(collector, server, {
    trace: (traceId: string) => collector.spans!.filter((s) => s.traceId === traceId),
    sentBy(service: string) {
      const seen = new Map<string, Sender>();
      for (const r of collector.requests!) {
        const ua = r.headers["user-agent"];
        const userAgent = typeof ua === "string" && ua.startsWith("OTel-") ? ua : undefined;
        for (const resource of r.resources.filter((x) => x["service.name"] === service)) {
          const sender = { userAgent, sdk: resource["telemetry.sdk.name"], language: resource["telemetry.sdk.language"] };
          seen.set(JSON.stringify(sender), sender);
        }
      }
      return [...seen.values()];
    },
    async waitFor(test: (spans: SpanData[]) => boolean, what: string, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      while (!test(collector.spans!)) {
        if (Date.now() > until) throw new Error(`timed out waiting for ${what}; spans: ${collector.spans!.map((s) => s.name).join(", ")}`);
        await sleep(50);
      }
    },
  }) as FakeCollector;
}

/** Each resource's attributes in an export request, values as the JSON wrote them (`{stringValue}` read as the string). */
function resourcesOf(body: string): Record<string, unknown>[] {
  try {
    const parsed = JSON.parse(body) as { resourceSpans?: { resource?: { attributes?: { key: string; value: Record<string, unknown> }[] } }[] };
    return (parsed.resourceSpans ?? []).map((r) => Object.fromEntries((r.resource?.attributes ?? []).map((a) => [a.key, Object.values(a.value ?? {})[0]])));
  } catch {
    return [];
  }
}
