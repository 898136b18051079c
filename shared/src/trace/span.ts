import { formatTraceparent, newSpanId, newTraceId, type TraceContext } from "./traceparent.ts";

/**
 * A span as Duet records it: the few fields OTLP needs and the terminal
 * waterfall draws. Times are epoch milliseconds (workerd's clock moves only
 * across I/O, which is where a turn's time goes anyway).
 */
export type AttributeValue = string | number | boolean;
export type SpanKind = "internal" | "server" | "client";

export interface SpanData {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: SpanKind;
  startMs: number;
  endMs: number;
  attributes: Record<string, AttributeValue>;
  /** Set when the span's work failed: a one-line, redacted reason. */
  error?: string;
  /** The process that recorded it (`duet-worker`, `duet-slack`, …): OTLP's resource `service.name`. */
  service?: string;
}

/**
 * A span kept by a tracer of its own (OpenTelemetry's SDK, in the bots): its
 * ids are the tracer's, so the `traceparent` sent on names the span the
 * tracer exports; `end` hands it the span as it finished.
 */
export interface TracerSpan extends TraceContext {
  end(span: SpanData): void;
}

/** A tracer that makes its own spans: a Span starts one of the tracer's, under `parent` (one of its own, or known by its ids). */
export interface SpanTracer {
  start(name: string, parent: TraceContext | null, opts: { kind: SpanKind; attributes: Record<string, AttributeValue>; startMs: number }): TracerSpan;
}

/** Where finished spans go: an exporter's buffer, a tracer of its own, or nowhere when tracing is off. */
export type SpanSink = ((span: SpanData) => void) | SpanTracer;

/** Where a front end's spans go: its tracer (OpenTelemetry's SDK in the bots), or nowhere. */
export interface FlowTracing {
  sink: SpanSink;
  /** Sends the finished spans in the background (never awaited by the ask); a tracer that sends on its own schedule does nothing here. */
  flush(): void;
}

/** A bot's tracing: the flow's, and the stop that sends what is left. */
export interface BotTracing extends FlowTracing {
  /** Sends the spans still waiting and stops the tracer; resolves within a bounded wait whatever the collector does. */
  shutdown(): Promise<void>;
}

/**
 * A span being recorded. It is cheap when nothing is exported (the sink drops
 * it), so the code that makes spans never asks whether tracing is on.
 */
export class Span {
  private ended = false;
  private readonly data: SpanData;
  private readonly now: () => number;
  /** The tracer's own span, when the sink is a tracer: children start under it. */
  private readonly traced?: TracerSpan;
  /** Where the span goes once ended: the sink, or the tracer's span. */
  private readonly finish: (span: SpanData) => void;

  constructor(
    private readonly sink: SpanSink,
    name: string,
    parent: TraceContext | null,
    opts: { kind?: SpanKind; attributes?: Record<string, AttributeValue>; startMs?: number; now?: () => number } = {},
  ) {
    this.now = opts.now ?? Date.now;
    const kind = opts.kind ?? "internal";
    const startMs = opts.startMs ?? this.now();
    const attributes = { ...opts.attributes };
    if (typeof sink === "function") this.finish = sink;
    else {
      const traced = sink.start(name, parent, { kind, attributes, startMs });
      this.traced = traced;
      this.finish = (span) => traced.end(span);
    }
    this.data = {
      traceId: this.traced?.traceId ?? parent?.traceId ?? newTraceId(),
      spanId: this.traced?.spanId ?? newSpanId(),
      ...(parent ? { parentSpanId: parent.spanId } : {}),
      name,
      kind,
      startMs,
      endMs: 0,
      attributes,
    };
  }

  get traceId(): string {
    return this.data.traceId;
  }

  get context(): TraceContext {
    return { traceId: this.data.traceId, spanId: this.data.spanId };
  }

  /** The `traceparent` that makes the next hop this span's child. */
  get traceparent(): string {
    return formatTraceparent(this.context);
  }

  set(attributes: Record<string, AttributeValue | null | undefined>): this {
    for (const [k, v] of Object.entries(attributes)) if (v !== null && v !== undefined) this.data.attributes[k] = v;
    return this;
  }

  rename(name: string): this {
    this.data.name = name;
    return this;
  }

  /** Marks the span failed; `reason` must already be redacted (it is exported as written). */
  fail(reason: string): this {
    this.data.error = reason.slice(0, 300);
    return this;
  }

  child(name: string, opts: { kind?: SpanKind; attributes?: Record<string, AttributeValue> } = {}): Span {
    return new Span(this.sink, name, this.traced ?? this.context, { ...opts, now: this.now });
  }

  /** Ends the span once (a second end is ignored) and hands it to the sink. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.finish({ ...this.data, endMs: Math.max(this.now(), this.data.startMs) });
  }

  /** Runs `work` inside a child span, ended (and failed, with `reasonOf(err)`) however it goes. */
  async within<T>(name: string, work: (span: Span) => Promise<T>, opts: { kind?: SpanKind; attributes?: Record<string, AttributeValue>; reasonOf?: (err: unknown) => string } = {}): Promise<T> {
    const span = this.child(name, opts);
    try {
      return await work(span);
    } catch (err) {
      span.fail(opts.reasonOf ? opts.reasonOf(err) : errorName(err));
      throw err;
    } finally {
      span.end();
    }
  }
}

/** A reason safe to export without redaction: the error's class and code, never its message. */
export function errorName(err: unknown): string {
  const e = err as { name?: unknown; code?: unknown } | null;
  const code = typeof e?.code === "string" ? `: ${e.code}` : "";
  return `${typeof e?.name === "string" ? e.name : "Error"}${code}`;
}

/** A sink that drops every span: tracing off. */
export const NO_SPANS: SpanSink = () => undefined;
