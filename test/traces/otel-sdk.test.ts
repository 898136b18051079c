import { EXPORT_BUFFER_SPANS, NO_SPANS, parseTraceparent, Span } from "@duet/shared";
import { botTracing } from "@duet/shared/otel";
import { diag, DiagLogLevel } from "@opentelemetry/api";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startFakeCollector, type FakeCollector } from "../fakes/otlp.ts";

/**
 * The bots' tracing through OpenTelemetry's SDK, against a fake OTLP
 * collector on 127.0.0.1: the spans the flow makes arrive as the SDK's, with
 * the ids the flow showed (the traceparent sent on, the ref), and a collector
 * that refuses or is gone is one log line, never the SDK's own output.
 */

let collector: FakeCollector;
let printed: string[];

beforeEach(async () => {
  collector = await startFakeCollector();
  printed = [];
  for (const level of ["log", "info", "warn", "error", "debug"] as const) vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void printed.push(args.join(" ")));
});
afterEach(async () => {
  vi.restoreAllMocks();
  diag.disable();
  await collector.close();
});

describe("a bot's spans through OpenTelemetry's SDK", () => {
  it("arrive as the flow made them: service, names, kinds, attributes, status, parents, and the ids its traceparent named", async () => {
    const tracing = await botTracing({ endpoint: collector.url, headers: { "x-api-key": "k-1" }, delayMs: 0 }, "duet-test");
    let now = 1_765_000_000_000;
    const root = new Span(tracing.sink, "slack.message", null, { kind: "server", attributes: { "gen_ai.conversation.id": "room-1" }, now: () => now });
    now += 40;
    const call = root.child("POST /message", { kind: "client" });
    const sentOn = call.traceparent;
    call.set({ "duet.stream": true, "http.response.status_code": 502 }).rename("POST /message failed").fail("DuetError: worker_unavailable");
    now += 210;
    call.end();
    root.end();
    // A delivery under a turn the room kept only as a traceparent: a parent known by its ids.
    const kept = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    new Span(tracing.sink, "outbox.deliver", parseTraceparent(kept)).end();
    // Shutting down sends what waits: the barrier before reading the collector.
    await tracing.shutdown();

    const [event] = collector.spans.filter((s) => s.name === "slack.message");
    const [posted] = collector.spans.filter((s) => s.name === "POST /message failed");
    const [delivered] = collector.spans.filter((s) => s.name === "outbox.deliver");
    expect(event).toMatchObject({ traceId: root.traceId, spanId: root.context.spanId, kind: "server", service: "duet-test", attributes: { "gen_ai.conversation.id": "room-1" } });
    expect(event.parentSpanId).toBeUndefined();
    // Epoch milliseconds as the span measured them.
    expect([event.startMs, event.endMs]).toEqual([1_765_000_000_000, 1_765_000_000_250]);
    expect(posted).toMatchObject({ traceId: root.traceId, parentSpanId: event.spanId, kind: "client", error: "DuetError: worker_unavailable" });
    expect(posted.attributes).toEqual({ "duet.stream": true, "http.response.status_code": 502 });
    expect([posted.startMs, posted.endMs]).toEqual([1_765_000_000_040, 1_765_000_000_250]);
    expect(sentOn).toBe(`00-${posted.traceId}-${posted.spanId}-01`);
    expect(delivered).toMatchObject({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", parentSpanId: "00f067aa0ba902b7", kind: "internal" });
    expect(collector.sentBy("duet-test")).toEqual([{ userAgent: expect.stringMatching(/^OTel-OTLP-Exporter-JavaScript\//), sdk: "opentelemetry", language: "nodejs" }]);
    expect(collector.requests.every((r) => r.headers["x-api-key"] === "k-1")).toBe(true);
  });

  it("with no endpoint starts nothing: spans are made, with ids, and dropped", async () => {
    const tracing = await botTracing(undefined, "duet-test");
    expect(tracing.sink).toBe(NO_SPANS);
    const span = new Span(tracing.sink, "duet.ask", null);
    expect(span.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    span.end();
    await tracing.shutdown();
    expect(collector.requests).toEqual([]);
  });

  it("a collector that refuses is one line naming its host, and nothing the SDK would print", async () => {
    collector.status = 404;
    // OpenTelemetry's diagnostics on, as a process that turned them on would have them (everything, stack traces
    // included, to its output): the bot's tracing takes their place.
    const said = (...args: unknown[]) => void printed.push(args.map(String).join(" "));
    diag.setLogger({ error: said, warn: said, info: said, debug: said, verbose: said }, { logLevel: DiagLogLevel.ALL, suppressOverrideMessage: true });
    printed.splice(0); // the API's own line on registering it
    const lines: string[] = [];
    const tracing = await botTracing({ endpoint: `${collector.url}/secret-path?key=abc`, headers: {}, delayMs: 0 }, "duet-test", (line) => lines.push(line));
    const ask = new Span(tracing.sink, "duet.ask", null);
    ask.child("chat.post").end();
    ask.end();
    await tracing.shutdown();
    expect(lines).toEqual([`traces: 2 span(s) dropped: the OTLP endpoint at 127.0.0.1:${collector.port} failed: it answered HTTP 404`]);
    expect(printed).toEqual([]);
  });

  it("a collector gone: the stop does not wait for it, and the loss is one line once the SDK gives up", async () => {
    const lines: string[] = [];
    await collector.close();
    const tracing = await botTracing({ endpoint: collector.url, headers: {}, delayMs: 0 }, "duet-test", (line) => lines.push(line));
    new Span(tracing.sink, "duet.ask", null).end();
    await tracing.shutdown();
    // Stopped while the SDK still retries (until EXPORT_TIMEOUT_MS): nothing said yet.
    expect(lines).toEqual([]);
    await vi.waitFor(() => expect(lines).toHaveLength(1), { timeout: 15_000, interval: 100 });
    expect(lines[0]).toBe(`traces: 1 span(s) dropped: the OTLP endpoint at 127.0.0.1:${collector.port} failed: it could not be reached (ECONNREFUSED)`);
    expect(printed).toEqual([]);
  });

  it("spans past the queue's bound while the collector is slow are dropped and counted in one line", async () => {
    collector.delayMs = 2_000;
    const lines: string[] = [];
    const tracing = await botTracing({ endpoint: collector.url, headers: {}, delayMs: 0 }, "duet-test", (line) => lines.push(line));
    // A first batch goes out at once and is held; the queue (EXPORT_BUFFER_SPANS) fills behind it, and 100 more are dropped.
    for (let i = 0; i < 512 + EXPORT_BUFFER_SPANS + 100; i++) new Span(tracing.sink, `turn ${i}`, null).end();
    await collector.waitFor((spans) => spans.length >= 512, "the first batch");
    expect(lines).toEqual([]);
    // The second batch leaves the queue only once the first is answered; its arrival is the barrier that there is room.
    await collector.waitFor((spans) => spans.length >= 1024, "the second batch");
    expect(lines).toEqual([]);
    // The SDK tells of the drop when the next span finds room.
    new Span(tracing.sink, "after", null).end();
    expect(lines).toEqual([`traces: 100 span(s) dropped: the OTLP endpoint at 127.0.0.1:${collector.port} failed: the queue is full (the collector is slow or down)`]);
    collector.delayMs = 0;
    await tracing.shutdown();
  });
});
