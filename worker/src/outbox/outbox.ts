import {
  DELIVERY_LEASE_MS,
  DELIVERY_PLATFORMS,
  DuetError,
  IDEMPOTENCY_TTL_MS,
  type DeliveryConfirm,
  type DeliveryItem,
  type DeliveryPlatform,
  type DeliveryTarget,
} from "@duet/shared";
import { armAlarmBy } from "../storage/alarm.ts";
import type { StoredAnswer } from "../storage/turn-types.ts";

/** What the room needs of a platform's feed (feed-object.ts). */
export interface FeedPeer {
  announce(roomId: string): Promise<void>;
  settle(roomId: string): Promise<void>;
}

type Row = Record<string, SqlStorageValue>;

/** Answered, sent somewhere, not yet confirmed, and young enough to still matter (a day, as replays). */
const UNDELIVERED = `status = 'done' AND deliver IS NOT NULL AND delivered IS NULL AND received_at > ?`;
/** A scheduled run's answer: no bot follows its turn live, so it is offered at once, without the grace time. */
const SCHEDULED = `json_extract(deliver, '$.place.schedule') IS NOT NULL`;

/**
 * The room's outbox: answers kept in their turn's row until a bot confirms it
 * posted them. A turn delivered live costs one row more than one with no
 * delivery target (the confirm); an answer still unconfirmed after `graceMs` (its bot died or lost
 * the Worker) is announced in its platform's feed, where any bot replica
 * claims it with a lease, posts it (or edits the message posted before) and
 * confirms it.
 */
export class Outbox {
  /** Messages posted for turns still running, by key: written with the answer, so they cost no row. */
  private readonly postedEarly = new Map<string, string>();
  /** Platforms whose feed lists this room (as far as this instance knows). */
  private readonly announced = new Set<DeliveryPlatform>();

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly roomId: string,
    private readonly feed: (platform: DeliveryPlatform) => FeedPeer,
    private readonly graceMs: number,
  ) {}

  private get sql() {
    return this.storage.sql;
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

  /** A bot posted (final: false) or finished posting (final: true) the answer under `key`. */
  confirm(req: DeliveryConfirm, running: (key: string) => boolean, now = Date.now()): { confirmed: boolean } {
    const row = this.sql
      .exec<Row>(
        `SELECT slot, status, delivered, lease_until, json_extract(deliver, '$.platform') AS platform FROM duet_ledger
         WHERE kind = 'message' AND idem_key = ? AND deliver IS NOT NULL ORDER BY seq DESC LIMIT 1`,
        req.key,
      )
      .toArray()[0];
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
      this.sql.exec(`UPDATE duet_ledger SET posted = ? WHERE slot = ?`, req.messageId, row.slot);
      return { confirmed: false };
    }
    this.sql.exec(`UPDATE duet_ledger SET delivered = ?, posted = NULL, lease_until = NULL WHERE slot = ?`, req.messageId, row.slot);
    const platform = String(row.platform) as DeliveryPlatform;
    // Claimed through the feed, or announced there by this instance: take the room off once nothing else waits.
    if ((row.lease_until !== null || this.announced.has(platform)) && this.waiting(platform, now) === 0) this.settle(platform);
    return { confirmed: true };
  }

  /**
   * A bot is still posting the answer under `key` itself: lease it to that bot
   * for DELIVERY_LEASE_MS from now (never shortening a lease), so no feed read
   * hands it to another. One row written per call; the bot calls every few seconds.
   */
  hold(key: string, now = Date.now()): { held: boolean } {
    const changed = this.sql.exec(
      `UPDATE duet_ledger SET lease_until = MAX(COALESCE(lease_until, 0), ?)
       WHERE kind = 'message' AND idem_key = ? AND deliver IS NOT NULL AND delivered IS NULL AND received_at > ?`,
      now + DELIVERY_LEASE_MS, key, now - IDEMPOTENCY_TTL_MS,
    ).rowsWritten;
    return { held: changed > 0 };
  }

  /**
   * The answers for `platform` a bot may deliver now: unconfirmed past the
   * grace time and not leased to another bot. Each is leased to the caller
   * (one row written each). A room with none left takes itself off the feed.
   */
  claim(platform: DeliveryPlatform, now = Date.now()): DeliveryItem[] {
    const rows = this.sql
      .exec<Row>(
        `SELECT slot, idem_key, user_id, question, reply, answer, deliver, posted FROM duet_ledger
         WHERE ${UNDELIVERED} AND json_extract(deliver, '$.platform') = ? AND (answered_at <= ? OR ${SCHEDULED}) AND (lease_until IS NULL OR lease_until <= ?)
         ORDER BY seq`,
        now - IDEMPOTENCY_TTL_MS, platform, now - this.graceMs, now,
      )
      .toArray();
    const leaseUntil = now + DELIVERY_LEASE_MS;
    const items = rows.map((r): DeliveryItem => {
      this.sql.exec(`UPDATE duet_ledger SET lease_until = ? WHERE slot = ?`, leaseUntil, r.slot);
      // A row kept only for delivery (not in the history) holds its reply in the answer.
      const stored = JSON.parse(String(r.answer)) as StoredAnswer;
      const answer = { ...stored, reply: r.reply === null ? stored.reply : String(r.reply), messages: [] };
      return {
        roomId: this.roomId,
        key: String(r.idem_key),
        deliver: JSON.parse(String(r.deliver)) as DeliveryTarget,
        messageId: r.posted === null ? null : String(r.posted),
        question: String(r.question),
        userId: r.user_id === null ? null : String(r.user_id),
        answer,
        leaseUntil,
      };
    });
    if (!items.length && this.waiting(platform, now) === 0) this.settle(platform);
    return items;
  }

  /**
   * The room's alarm fired: announce each platform with an answer unconfirmed
   * past the grace time, and come back for those not yet past it.
   */
  async afterAlarm(now = Date.now()): Promise<void> {
    const rows = this.sql
      .exec<Row>(
        `SELECT json_extract(deliver, '$.platform') AS platform, MIN(answered_at) AS oldest FROM duet_ledger WHERE ${UNDELIVERED} GROUP BY platform`,
        now - IDEMPOTENCY_TTL_MS,
      )
      .toArray();
    let next = Infinity;
    for (const r of rows) {
      const platform = String(r.platform) as DeliveryPlatform;
      const due = Number(r.oldest) + this.graceMs;
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

  private waiting(platform: DeliveryPlatform, now: number): number {
    return Number(
      this.sql.exec<Row>(`SELECT COUNT(*) AS n FROM duet_ledger WHERE ${UNDELIVERED} AND json_extract(deliver, '$.platform') = ?`, now - IDEMPOTENCY_TTL_MS, platform).one().n,
    );
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
