import { describe, expect, it, vi } from "vitest";
import { EXPORT_LOG_EVERY_MS } from "./export-report.ts";
import { otlpHeaders, SpanExporter, tracesUrl } from "./exporter.ts";
import { fromOtlp, toOtlp } from "./otlp.ts";
import { Span, type SpanData } from "./span.ts";
import { formatTraceparent, parseTraceparent, traceRef } from "./traceparent.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN = "00f067aa0ba902b7";

describe("traceparent", () => {
  it("reads a well-formed header and writes it back", () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`)).toEqual({ traceId: TRACE, spanId: SPAN });
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-00`)).toEqual({ traceId: TRACE, spanId: SPAN });
    // A later version may add fields after the flags.
    expect(parseTraceparent(`01-${TRACE}-${SPAN}-01-more`)).toEqual({ traceId: TRACE, spanId: SPAN });
    expect(formatTraceparent({ traceId: TRACE, spanId: SPAN })).toBe(`00-${TRACE}-${SPAN}-01`);
    expect(traceRef(TRACE)).toBe("ref 4bf92f35");
  });

  it("refuses empty, malformed, oversized and hostile headers (a new trace, never an error)", () => {
    for (const bad of [
      undefined,
      "",
      "garbage",
      `ff-${TRACE}-${SPAN}-01`,
      `00-${"0".repeat(32)}-${SPAN}-01`,
      `00-${TRACE}-${"0".repeat(16)}-01`,
      `00-${TRACE.toUpperCase()}-${SPAN}-01`,
      `00-${TRACE}-${SPAN}-01-extra`,
      `00-${TRACE}-${SPAN}-01`.repeat(40),
      `00-${TRACE}-${SPAN}-01\r\nx-injected: 1`,
    ]) {
      expect(parseTraceparent(bad), String(bad).slice(0, 40)).toBeNull();
    }
  });
});

describe("spans and OTLP", () => {
  it("a child shares the trace and names its parent; the JSON reads back as it was written", () => {
    const got: SpanData[] = [];
    let now = 1_000;
    const root = new Span((s) => got.push(s), "root", null, { kind: "server", attributes: { "gen_ai.conversation.id": "room" }, now: () => now });
    const child = root.child("child", { attributes: { n: 3, ok: true, ratio: 0.5 } }).fail("exit 2");
    now = 1_250;
    child.end();
    child.end();
    root.end();
    expect(got.map((s) => s.name)).toEqual(["child", "root"]);
    expect(got[0]).toMatchObject({ traceId: root.traceId, parentSpanId: root.context.spanId, startMs: 1_000, endMs: 1_250, error: "exit 2" });
    expect(fromOtlp(JSON.parse(JSON.stringify(toOtlp(got, "duet-test"))))).toEqual(got.map((s) => ({ ...s, service: "duet-test" })));
    expect(fromOtlp({ resourceSpans: [{ scopeSpans: [{ spans: [{ name: 1 }, null] }] }] })).toEqual([]);
    expect(fromOtlp("not otlp")).toEqual([]);
  });
});

describe("SpanExporter", () => {
  const span = (name: string): SpanData => ({ traceId: TRACE, spanId: SPAN, name, kind: "internal", startMs: 1, endMs: 2, attributes: {} });

  it("sends the batch to /v1/traces with the configured headers", async () => {
    const sent: { url: string; headers: Record<string, string>; body: unknown }[] = [];
    const fetch = (async (url: string, init: RequestInit) => {
      sent.push({ url, headers: init.headers as Record<string, string>, body: JSON.parse(String(init.body)) });
      return new Response("{}");
    }) as unknown as typeof globalThis.fetch;
    const exporter = new SpanExporter({ endpoint: "http://collector:4318/", headers: otlpHeaders("x-api-key=k%3D1, bad, =x"), service: "duet-test", fetch });
    exporter.add(span("a"));
    exporter.add(span("b"));
    await exporter.flush();
    expect(sent).toHaveLength(1);
    expect(sent[0].url).toBe("http://collector:4318/v1/traces");
    expect(sent[0].headers["x-api-key"]).toBe("k=1");
    expect(fromOtlp(sent[0].body).map((s) => s.name)).toEqual(["a", "b"]);
    expect(tracesUrl("http://c")).toBe("http://c/v1/traces");
  });

  it("keeps at most its bound while a send is in flight, drops a failed batch, and logs once a minute", async () => {
    let release!: () => void;
    let calls = 0;
    const fetch = (async () => {
      calls++;
      if (calls === 1) await new Promise<void>((r) => (release = r));
      throw new TypeError("fetch failed");
    }) as unknown as typeof globalThis.fetch;
    let now = 0;
    const logs: string[] = [];
    const exporter = new SpanExporter({ endpoint: "http://secret-path@collector/x?key=abc", service: "t", fetch, maxSpans: 3, now: () => now, log: (l) => logs.push(l) });
    exporter.add(span("first"));
    const first = exporter.flush();
    // One send in the air: a second flush joins it, and spans wait, bounded.
    for (let i = 0; i < 10; i++) exporter.add(span(`later-${i}`));
    expect(exporter.flush()).toBe(first);
    expect(exporter.waiting).toBe(3);
    release();
    await first;
    expect(exporter.waiting).toBe(0);
    expect(calls).toBe(2);
    // The buffer filling logged once; the failed sends within the same minute did not log again.
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^traces: \d+ span\(s\) dropped: the OTLP endpoint at collector failed/);
    expect(logs[0]).not.toMatch(/abc|secret-path/);
    now += EXPORT_LOG_EVERY_MS;
    exporter.add(span("after-a-minute"));
    await exporter.flush();
    expect(logs).toHaveLength(2);
    expect(logs[1]).toContain("it could not be reached");
  });

  it("with a linger, spans added while it waits go in the same one send, and a flush asked meanwhile joins it", async () => {
    vi.useFakeTimers();
    try {
      const batches: string[][] = [];
      const fetch = (async (_url: string, init: RequestInit) => {
        batches.push(fromOtlp(JSON.parse(String(init.body))).map((s) => s.name));
        return new Response("{}");
      }) as unknown as typeof globalThis.fetch;
      const exporter = new SpanExporter({ endpoint: "http://collector", service: "t", fetch, lingerMs: 1_000 });
      exporter.add(span("turn-1"));
      const first = exporter.flushSoon();
      exporter.add(span("turn-2"));
      expect(exporter.flushSoon()).toBe(first);
      await vi.advanceTimersByTimeAsync(999);
      expect(batches).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      await first;
      expect(batches).toEqual([["turn-1", "turn-2"]]);
      // The next turn starts a wait of its own.
      exporter.add(span("turn-3"));
      const second = exporter.flushSoon();
      await vi.advanceTimersByTimeAsync(1_000);
      await second;
      expect(batches).toEqual([["turn-1", "turn-2"], ["turn-3"]]);
    } finally {
      vi.useRealTimers();
    }
  });
});
