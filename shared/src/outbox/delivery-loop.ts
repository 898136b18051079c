import type { AnswersInFlight } from "../bot/answers-in-flight.ts";
import type { WorkerClient } from "../client/client.ts";
import type { DeliveryItem, DeliveryPlatform } from "../wire/delivery.ts";
import { redactAnswer } from "../format/redact-answer.ts";
import { redactSecrets } from "../format/redact.ts";
import type { FlowTracing } from "../flow/traced.ts";
import { errorName, NO_SPANS, Span } from "../trace/span.ts";
import { parseTraceparent } from "../trace/traceparent.ts";

/** How long a read of the feed waits for an answer before the bot reads again. */
export const FEED_WAIT_MS = 20_000;
/** After a failed read (Worker down), or a read that returned items all leased elsewhere: a pause before the next. */
const PAUSE_MS = 1_000;

export interface DeliveryLoopOptions {
  platform: DeliveryPlatform;
  worker: WorkerClient;
  /** Posts the item (or edits `item.messageId`), its answer and question already redacted; the posted message's id, or null when the platform refused it. */
  deliver(item: DeliveryItem): Promise<string | null>;
  /** Literal values never shown in chat (the bot's own tokens), besides the shared patterns, as the flow's FlowDeps.secrets. */
  secrets?: readonly string[];
  log(line: string): void;
  waitMs?: number;
  /** Answers this process is posting itself (FlowDeps.answering): left to that, not delivered a second time. */
  answering?: AnswersInFlight;
  /**
   * Proposes the change of a delivered answer that ended with the model's
   * `<pr>`, in the place the answer went (the flow's proposeDelivered): called
   * once per answer, after the confirm that marked it delivered, or for an
   * item offered for its proposal alone (the bot that delivered it died first).
   */
  proposePr?: (item: DeliveryItem) => Promise<void>;
  /** Told of each item delivered and confirmed: for the bot's metrics. */
  onDelivered?: (item: DeliveryItem) => void;
  /** Where the bot's spans go: each delivery is an `outbox.deliver` span in its turn's trace. */
  tracing?: FlowTracing;
}

/**
 * A bot's side of the outbox: read the platform's feed at start-up and keep a
 * read open while the bot runs; post each answer handed out (leased to this
 * bot) and confirm it with the posted message's id. Whatever dies on the way
 * (this process, the Worker) leaves the answer in the room for the next read.
 */
export class DeliveryLoop {
  private running = false;
  private readonly abort = new AbortController();

  constructor(private readonly opts: DeliveryLoopOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.run();
  }

  /** Stops reading. A read still open is left to end on its own: what it claims stays leased, and is delivered after the lease. */
  stop(): void {
    this.running = false;
    this.abort.abort();
  }

  private async run(): Promise<void> {
    // The first read does not wait: answers left by a bot that died are delivered at start-up.
    let waitMs = 0;
    while (this.running) {
      let items: DeliveryItem[] = [];
      try {
        items = (await this.opts.worker.deliveries(this.opts.platform, waitMs)).items;
      } catch (err) {
        if (!this.running) return;
        this.opts.log(`Could not read the ${this.opts.platform} delivery feed: ${(err as Error).message}`);
        await this.pause();
        continue;
      }
      for (const item of items) if (this.running) await this.deliverOne(item);
      // A room listed with its answers leased to another bot answers at once and empty: not a reason to spin.
      if (!items.length && waitMs > 0) await this.pause();
      waitMs = this.opts.waitMs ?? FEED_WAIT_MS;
    }
  }

  private async deliverOne(item: DeliveryItem): Promise<void> {
    // Still being posted here (waiting its turn in a busy channel): its lease runs out, and by then it is confirmed.
    if (this.opts.answering?.has(item.roomId, item.key)) return;
    // Leased to this bot by the hand-out: kept so while it is posted, however long the channel's pace holds it.
    const release = this.opts.answering?.handed(item.roomId, item.key);
    const span = deliverySpan(this.opts.tracing, this.opts.platform, item);
    try {
      // The answer was delivered and confirmed by a bot that died before it posted the proposal after it: only that is left.
      if (item.proposalOnly) {
        if (item.messageId) await span.within("duet.propose", () => this.propose(item, item.messageId!), { kind: "client" });
        return;
      }
      const secrets = this.opts.secrets ?? [];
      const messageId = await span.within("chat.deliver", () => this.opts.deliver({ ...item, answer: redactAnswer(item.answer, secrets), question: redactSecrets(item.question, secrets) }), { kind: "client" });
      span.set({ "duet.delivery.posted": messageId !== null });
      if (messageId) {
        const confirmed = await span.within("duet.confirm", () => this.opts.worker.confirmDelivery(item.roomId, { key: item.key, messageId }), { kind: "client" });
        this.opts.onDelivered?.(item);
        // Only the confirm that delivered it proposes: a second bot's or a retried confirm of the same answer does not.
        if (confirmed.first && item.answer.pr) await this.propose(item, messageId);
      }
    } catch (err) {
      span.fail(errorName(err));
      this.opts.log(`Could not deliver an answer in ${item.roomId}: ${(err as Error).message}`);
    } finally {
      release?.();
      span.end();
      this.opts.tracing?.flush();
    }
  }

  /**
   * Proposes the change of a delivered answer that ended with `<pr>`, then
   * tells the room it was posted: until then the room keeps offering it, so
   * a bot that dies in between leaves it to the next.
   */
  private async propose(item: DeliveryItem, messageId: string): Promise<void> {
    if (!this.opts.proposePr) return;
    await this.opts.proposePr(item);
    await this.opts.worker.confirmDelivery(item.roomId, { key: item.key, messageId, proposed: true });
  }

  private pause(): Promise<void> {
    // The listener goes with the pause: one left per pause on the loop's one signal would pile up while reads come back empty.
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.abort.signal.removeEventListener("abort", done);
        resolve();
      };
      const t = setTimeout(done, PAUSE_MS);
      this.abort.signal.addEventListener("abort", done, { once: true });
    });
  }
}

/**
 * One delivery as a span in its turn's trace (the `traceparent` the room kept
 * with the answer), so an answer posted by another bot, after the asking one
 * died, shows under the turn that made it; a new trace when the room kept none.
 */
function deliverySpan(tracing: FlowTracing | undefined, platform: DeliveryPlatform, item: DeliveryItem): Span {
  return new Span(tracing?.sink ?? NO_SPANS, "outbox.deliver", parseTraceparent(item.traceparent), {
    kind: "client",
    attributes: {
      "gen_ai.conversation.id": item.roomId,
      "duet.delivery.platform": platform,
      "duet.delivery.edit": item.messageId !== null,
      ...(item.answeredAt !== undefined ? { "duet.outbox.lag_ms": Math.max(0, Date.now() - item.answeredAt) } : {}),
    },
  });
}
