import type { IncomingMessage, ServerResponse } from "node:http";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/**
 * A bot process's health in numbers, for Prometheus (`GET /metrics` beside
 * `/healthz`): acks and how long they took, turns in flight, outbox deliveries
 * and their lag, the platform's 429s, the time new messages wait for their
 * channel's pace, and the process's own (memory, CPU, event-loop lag).
 * Node-only (prom-client): imported as `@duet/shared/metrics`, never by the Worker.
 *
 * Labels take only the few values below, never a user's text, an id or a
 * token, so a series per person or channel cannot be made.
 */

export { METRICS_PATH } from "./health-server.ts";

export type MetricsPlatform = "slack" | "discord";
/** What was acknowledged: a Slack event (a mention, a DM), a slash command, a button or menu, or a Discord command. */
export type AckKind = "event" | "command" | "click";

/** Seconds, from a fast ack to Slack's 3 s and Discord's 3 s deadlines. */
const ACK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5];
/** Seconds, from a delivery just after the answer to one left by a bot down for an hour. */
const LAG_BUCKETS = [0.5, 1, 5, 15, 30, 60, 300, 900, 3600];
/** Seconds, from a free channel to a busy one's queue. */
const PACE_BUCKETS = [0, 0.05, 0.25, 0.5, 1, 2, 5, 10, 30];

export class BotMetrics {
  readonly registry = new Registry();
  private readonly acks: Counter<"platform" | "kind">;
  private readonly ackSeconds: Histogram<"platform" | "kind">;
  private readonly delivered: Counter<"platform">;
  private readonly lag: Histogram<"platform">;
  private readonly limited: Counter<"platform">;
  private readonly paceWait: Histogram<"platform">;
  private readonly inFlight = new Map<MetricsPlatform, () => number>();

  constructor(private readonly platform: MetricsPlatform) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.acks = new Counter({ name: "duet_acks_total", help: "Platform requests acknowledged.", labelNames: ["platform", "kind"], registers });
    this.ackSeconds = new Histogram({ name: "duet_ack_seconds", help: "Seconds from a request's receipt to its ack.", labelNames: ["platform", "kind"], buckets: ACK_BUCKETS, registers });
    const inFlight = this.inFlight;
    new Gauge({
      name: "duet_turns_in_flight",
      help: "Answers this process has started and not finished.",
      labelNames: ["platform"],
      registers,
      collect() {
        for (const [platform, size] of inFlight) this.set({ platform }, size());
      },
    });
    this.delivered = new Counter({ name: "duet_outbox_delivered_total", help: "Answers delivered from the outbox.", labelNames: ["platform"], registers });
    this.lag = new Histogram({ name: "duet_outbox_lag_seconds", help: "Seconds from an answer to its delivery from the outbox.", labelNames: ["platform"], buckets: LAG_BUCKETS, registers });
    this.limited = new Counter({ name: "duet_platform_rate_limited_total", help: "Calls the platform refused with 429 (rate limited).", labelNames: ["platform"], registers });
    this.paceWait = new Histogram({ name: "duet_pace_wait_seconds", help: "Seconds a new message waited for its channel's pace.", labelNames: ["platform"], buckets: PACE_BUCKETS, registers });
    // Zero series from the start, so a rate() has a baseline before the first event.
    this.inFlight.set(platform, () => 0);
    this.delivered.inc({ platform }, 0);
    this.limited.inc({ platform }, 0);
  }

  ack(kind: AckKind, seconds: number): void {
    this.acks.inc({ platform: this.platform, kind });
    this.ackSeconds.observe({ platform: this.platform, kind }, Math.max(0, seconds));
  }

  /** The gauge reads `size` (an InFlight's) at each scrape. */
  turnsInFlight(size: () => number): void {
    this.inFlight.set(this.platform, size);
  }

  /** An outbox answer delivered; `answeredAt` (ms) when the Worker says when it was answered. */
  outboxDelivered(answeredAt: number | undefined, now = Date.now()): void {
    this.delivered.inc({ platform: this.platform });
    if (answeredAt !== undefined) this.lag.observe({ platform: this.platform }, Math.max(0, (now - answeredAt) / 1000));
  }

  rateLimited(): void {
    this.limited.inc({ platform: this.platform });
  }

  paceWaited(ms: number): void {
    this.paceWait.observe({ platform: this.platform }, Math.max(0, ms) / 1000);
  }

  /** Answers `GET /metrics` (HEAD too) in Prometheus's text format. */
  async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { "content-type": "application/json", allow: "GET, HEAD" });
      res.end(JSON.stringify({ error: "method not allowed" }));
      return;
    }
    try {
      const body = await this.registry.metrics();
      res.writeHead(200, { "content-type": this.registry.contentType, "cache-control": "no-store" });
      res.end(req.method === "HEAD" ? undefined : body);
    } catch (err) {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(`metrics failed: ${(err as Error).message}\n`);
    }
  }
}
