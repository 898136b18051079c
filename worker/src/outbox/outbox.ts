import { DELIVERY_PLATFORMS, DuetError, type DeliveryConfirm, type DeliveryHoldResponse, type DeliveryItem, type DeliveryPlatform, type DeliveryTarget } from "@duet/shared";
import { armAlarmBy } from "../storage/alarm.ts";
import { DeliveryRows } from "../storage/delivery-rows.ts";

/** What the room needs of a platform's feed (feed-object.ts). */
export interface FeedPeer {
  announce(roomId: string): Promise<void>;
  settle(roomId: string): Promise<void>;
}

/**
 * The room's outbox: answers kept in their turn's row until a bot confirms it
 * posted them. A turn delivered live costs one row written for the confirm,
 * beside what any turn costs; an answer still unconfirmed after `graceMs` (its bot died or lost
 * the Worker) is announced in its platform's feed, where any bot replica
 * claims it with a lease, posts it (or edits the message posted before) and
 * confirms it.
 */
export class Outbox {
  /** Messages posted for turns still running, by key: written with the answer, so they cost no row. */
  private readonly postedEarly = new Map<string, string>();
  /** Platforms whose feed lists this room (as far as this instance knows). */
  private readonly announced = new Set<DeliveryPlatform>();
  /** The answers' rows in the turn ledger (storage owns the table and its SQL). */
  private readonly rows: DeliveryRows;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly roomId: string,
    private readonly feed: (platform: DeliveryPlatform) => FeedPeer,
    /** DUET_DELIVERY_GRACE_MS: how long an answer's own bot has to confirm it before the feed offers it. */
    private readonly graceMs: number,
    /** DUET_DELIVERY_LEASE_MS: how long an answer handed to a bot (by the feed, or held) is that bot's alone. */
    private readonly leaseMs: number,
  ) {
    this.rows = new DeliveryRows(storage.sql);
  }

  /** The message posted early for a running turn, taken to be written with its answer. */
  takePosted(key: string | null): string | null {
    if (!key) return null;
    const id = this.postedEarly.get(key) ?? null;
    this.postedEarly.delete(key);
    return id;
  }

  /** A turn with a target was answered: look again once its bot has had the grace time to confirm. */
  async answered(now = Date.now()): Promise<void> {
    await this.armAt(now + this.graceMs);
  }

  /**
   * A bot posted (final: false) or finished posting (final: true) the answer
   * under `key`, or (proposed: true) posted the proposal that follows an
   * answer ending with the model's `<pr>`. Until that proposal is confirmed,
   * the answer stays in the outbox, leased for the lease (leaseMs) to the bot
   * that confirmed the answer: a bot that dies before posting the proposal
   * leaves it to the feed, which offers it alone (proposalOnly).
   */
  async confirm(req: DeliveryConfirm, running: (key: string) => boolean, now = Date.now()): Promise<{ confirmed: boolean; first?: true }> {
    const row = this.rows.find(req.key);
    if (row && req.proposed) {
      if (row.delivered === null) return { confirmed: false };
      if (row.prPending) {
        this.rows.proposed(row.slot);
        if (this.announced.has(row.platform) && this.rows.waiting(row.platform, now) === 0) this.settle(row.platform);
      }
      return { confirmed: true };
    }
    if (!row) {
      if (!req.final && running(req.key)) {
        this.postedEarly.set(req.key, req.messageId);
        return { confirmed: false };
      }
      throw new DuetError("not_found", "No answer in this room waits for delivery under that key.");
    }
    if (row.status === "pending") {
      if (req.final) throw new DuetError("invalid_request", "That turn has not been answered yet: only a message posted for it so far can be recorded.", { status: 409 });
      this.postedEarly.set(req.key, req.messageId);
      return { confirmed: false };
    }
    if (row.delivered !== null) return { confirmed: row.delivered === req.messageId };
    if (!req.final) {
      this.rows.posted(row.slot, req.messageId);
      return { confirmed: false };
    }
    // A proposal follows: a bot that dies before posting it leaves it to the feed once the lease ends.
    const proposalLease = row.hasPr ? now + this.leaseMs : null;
    this.rows.delivered(row.slot, req.messageId, proposalLease);
    if (proposalLease !== null) await this.armAt(proposalLease);
    const platform = row.platform;
    // Claimed through the feed, or announced there by this instance: take the room off once nothing else waits.
    if ((row.leased || this.announced.has(platform)) && this.rows.waiting(platform, now) === 0) this.settle(platform);
    return { confirmed: true, first: true };
  }

  /**
   * A bot is still posting the answer under `key` itself: lease it to that bot
   * for leaseMs from now (never shortening a lease), so no feed read hands it
   * to another. One row written per call; the answer names the lease, and the
   * bot calls again every third of it.
   */
  hold(key: string, now = Date.now()): DeliveryHoldResponse {
    return { held: this.rows.hold(key, now + this.leaseMs, now), leaseMs: this.leaseMs };
  }

  /**
   * The answers for `platform` a bot may deliver now: unconfirmed past the
   * grace time and not leased to another bot. Each is leased to the caller
   * (one row written each). A room with none left takes itself off the feed.
   */
  claim(platform: DeliveryPlatform, now = Date.now()): DeliveryItem[] {
    const leaseUntil = now + this.leaseMs;
    const items = this.rows
      .lease(platform, now - this.graceMs, now, leaseUntil)
      .map(({ answer, traceparent, proposalOnly, ...waiting }): DeliveryItem => ({
        roomId: this.roomId,
        ...waiting,
        answer: { ...answer, messages: [] },
        leaseUntil,
        ...(traceparent ? { traceparent } : {}),
        ...(proposalOnly ? { proposalOnly } : {}),
      }));
    if (!items.length && this.rows.waiting(platform, now) === 0) this.settle(platform);
    return items;
  }

  /** Where the room's latest question from a person was answered (see DeliveryRows.latestTarget). */
  latestTarget(): DeliveryTarget | null {
    return this.rows.latestTarget();
  }

  /**
   * The room's alarm fired: announce each platform with an answer unconfirmed
   * past the grace time, and come back for those not yet past it.
   */
  async afterAlarm(now = Date.now()): Promise<void> {
    let next = Infinity;
    for (const { platform, oldest } of this.rows.oldestByPlatform(now)) {
      const due = oldest + this.graceMs;
      if (due > now) next = Math.min(next, due);
      else {
        await this.feed(platform).announce(this.roomId);
        this.announced.add(platform);
      }
    }
    if (next !== Infinity) await this.armAt(next);
  }

  /** A scheduled run was answered: its platform's feed lists the room now (no row written when already listed). */
  async offerNow(platform: DeliveryPlatform): Promise<void> {
    await this.feed(platform).announce(this.roomId);
    this.announced.add(platform);
  }

  /** The room was deleted: its feeds forget it (best effort; a feed read of a room with nothing waiting also settles it). */
  async forget(): Promise<void> {
    this.postedEarly.clear();
    this.announced.clear();
    await Promise.all(DELIVERY_PLATFORMS.map((p) => this.feed(p).settle(this.roomId).catch(() => undefined)));
  }

  private settle(platform: DeliveryPlatform): void {
    this.announced.delete(platform);
    this.feed(platform)
      .settle(this.roomId)
      .catch((err) => console.error("a delivery feed could not be told the room's answers were delivered", err));
  }

  private armAt(at: number): Promise<void> {
    return armAlarmBy(this.storage, at);
  }
}
