import { IDEMPOTENCY_TTL_MS, type DeliveryPlatform, type DeliveryTarget } from "@duet/shared";
import type { StoredAnswer } from "./turn-types.ts";

type Row = Record<string, SqlStorageValue>;

/**
 * The outbox's columns in the turn's own row (duet_ledger): where the answer
 * goes, what a bot posted for it, the platform id it was confirmed with, and
 * the lease of the bot delivering it, and whether the proposal that follows an
 * answer ending with the model's `<pr>` is still to be posted. The ledger makes a new table with them
 * and adds them to an older one (a new column costs no row of the turns written).
 */
export const DELIVERY_COLUMNS: Readonly<Record<string, string>> = {
  deliver: "TEXT",
  posted: "TEXT",
  delivered: "TEXT",
  lease_until: "INTEGER",
  pr_pending: "INTEGER",
};

/**
 * Answered, sent somewhere, not yet confirmed (or confirmed with its `<pr>`
 * proposal not yet posted), and young enough to still matter (a day, as replays).
 */
const UNDELIVERED = `status = 'done' AND deliver IS NOT NULL AND (delivered IS NULL OR pr_pending = 1) AND received_at > ?`;
/** A scheduled run's answer, or what GitHub's webhook brought (a note, a comment's answer): no bot follows its turn live, so it is offered at once, without the grace time. */
const SCHEDULED = `(json_extract(deliver, '$.place.schedule') IS NOT NULL OR json_extract(deliver, '$.place.github') IS NOT NULL)`;

/**
 * The deliver column's JSON: where the answer goes and, beside it, the
 * `traceparent` of the turn that made it, so a delivery by any bot (after the
 * asking one died, or for a schedule nobody follows) joins the turn's trace.
 */
export function deliverColumn(target: DeliveryTarget, traceparent?: string): string {
  return JSON.stringify(traceparent ? { ...target, traceparent } : target);
}

/** The deliver column read back: the target as the bot described it, and the turn's `traceparent` (null when none was kept). */
export function readDeliverColumn(json: SqlStorageValue): { deliver: DeliveryTarget; traceparent: string | null } {
  const { traceparent, ...deliver } = JSON.parse(String(json)) as DeliveryTarget & { traceparent?: unknown };
  return { deliver, traceparent: typeof traceparent === "string" ? traceparent : null };
}

/** The delivery state of the newest message turn asked under a key. */
export interface DeliveryState {
  slot: number;
  status: string;
  /** The platform's id of the message a bot confirmed, or null. */
  delivered: string | null;
  /** Whether a bot holds or held a lease on it (claimed through the feed, or held while posting). */
  leased: boolean;
  platform: DeliveryPlatform;
  /** The answer ended with the model's `<pr>`: a proposal follows it. */
  hasPr: boolean;
  /** Delivered, and the proposal after it not yet posted. */
  prPending: boolean;
}

/** An answer waiting for delivery, as the outbox hands it to a bot. */
export interface WaitingAnswer {
  key: string;
  deliver: DeliveryTarget;
  messageId: string | null;
  question: string;
  userId: string | null;
  answer: StoredAnswer;
  /** When the room answered (ms). */
  answeredAt: number;
  /** The turn's `traceparent`: the delivery's span joins the turn's trace under it. */
  traceparent: string | null;
  /** The answer is posted (as `messageId`); only the proposal after it waits. */
  proposalOnly: boolean;
}

/**
 * Every statement the outbox makes on the ledger's table, so one folder owns
 * the table's SQL: the outbox decides when to deliver, these rows say what waits.
 * Each write is one row.
 */
export class DeliveryRows {
  constructor(private readonly sql: SqlStorage) {}

  /** The message turn asked under `key` that has a delivery target, or null. */
  find(key: string): DeliveryState | null {
    const row = this.sql
      .exec<Row>(
        `SELECT slot, status, delivered, lease_until, pr_pending, json_extract(answer, '$.pr') IS NOT NULL AS has_pr, json_extract(deliver, '$.platform') AS platform FROM duet_ledger
         WHERE kind = 'message' AND idem_key = ? AND deliver IS NOT NULL ORDER BY seq DESC LIMIT 1`,
        key,
      )
      .toArray()[0];
    if (!row) return null;
    return {
      slot: Number(row.slot),
      status: String(row.status),
      delivered: row.delivered === null ? null : String(row.delivered),
      leased: row.lease_until !== null,
      platform: String(row.platform) as DeliveryPlatform,
      hasPr: Number(row.has_pr) === 1,
      prPending: Number(row.pr_pending) === 1,
    };
  }

  /** A bot posted (and may still be editing) `messageId` for the answer in `slot`. */
  posted(slot: number, messageId: string): void {
    this.sql.exec(`UPDATE duet_ledger SET posted = ? WHERE slot = ?`, messageId, slot);
  }

  /**
   * The answer in `slot` was delivered as `messageId`: nothing posted left to
   * edit. `proposalLease`: a proposal follows it, leased to the bot that
   * confirmed until then; null: nothing follows, no lease.
   */
  delivered(slot: number, messageId: string, proposalLease: number | null): void {
    this.sql.exec(
      `UPDATE duet_ledger SET delivered = ?, posted = NULL, lease_until = ?, pr_pending = ? WHERE slot = ?`,
      messageId, proposalLease, proposalLease === null ? null : 1, slot,
    );
  }

  /** The proposal after the answer in `slot` was posted: nothing of it waits. */
  proposed(slot: number): void {
    this.sql.exec(`UPDATE duet_ledger SET pr_pending = NULL, lease_until = NULL WHERE slot = ?`, slot);
  }

  /** Leases the undelivered answer under `key` until `until` (never shortening a lease); false when none waits. */
  hold(key: string, until: number, now: number): boolean {
    const changed = this.sql.exec(
      `UPDATE duet_ledger SET lease_until = MAX(COALESCE(lease_until, 0), ?)
       WHERE kind = 'message' AND idem_key = ? AND deliver IS NOT NULL AND delivered IS NULL AND received_at > ?`,
      until, key, now - IDEMPOTENCY_TTL_MS,
    ).rowsWritten;
    return changed > 0;
  }

  /**
   * The answers for `platform` answered at or before `answeredBy` (a scheduled
   * run's at once) and not leased at `now`, oldest first, each leased until `leaseUntil`.
   */
  lease(platform: DeliveryPlatform, answeredBy: number, now: number, leaseUntil: number): WaitingAnswer[] {
    const rows = this.sql
      .exec<Row>(
        `SELECT slot, idem_key, user_id, question, reply, answer, deliver, posted, delivered, pr_pending, answered_at FROM duet_ledger
         WHERE ${UNDELIVERED} AND json_extract(deliver, '$.platform') = ? AND (answered_at <= ? OR ${SCHEDULED}) AND (lease_until IS NULL OR lease_until <= ?)
         ORDER BY seq`,
        now - IDEMPOTENCY_TTL_MS, platform, answeredBy, now,
      )
      .toArray();
    return rows.map((r): WaitingAnswer => {
      this.sql.exec(`UPDATE duet_ledger SET lease_until = ? WHERE slot = ?`, leaseUntil, r.slot);
      // A row kept only for delivery (not in the history) holds its reply in the answer.
      const stored = JSON.parse(String(r.answer)) as StoredAnswer;
      const proposalOnly = r.delivered !== null && Number(r.pr_pending) === 1;
      const messageId = proposalOnly ? r.delivered : r.posted;
      return {
        key: String(r.idem_key),
        ...readDeliverColumn(r.deliver),
        messageId: messageId === null ? null : String(messageId),
        proposalOnly,
        question: String(r.question),
        userId: r.user_id === null ? null : String(r.user_id),
        answer: { ...stored, reply: r.reply === null ? stored.reply : String(r.reply) },
        answeredAt: Number(r.answered_at),
      };
    });
  }

  /** Each platform with an answer undelivered at `now`, and when its oldest was answered. */
  oldestByPlatform(now: number): { platform: DeliveryPlatform; oldest: number }[] {
    return this.sql
      .exec<Row>(
        `SELECT json_extract(deliver, '$.platform') AS platform, MIN(answered_at) AS oldest FROM duet_ledger WHERE ${UNDELIVERED} GROUP BY platform`,
        now - IDEMPOTENCY_TTL_MS,
      )
      .toArray()
      .map((r) => ({ platform: String(r.platform) as DeliveryPlatform, oldest: Number(r.oldest) }));
  }

  /**
   * Where the room's latest question from a person was answered (not a
   * schedule's, not GitHub's): the chat place its conversation is in now. Null
   * when no turn here had one (the CLI, the API).
   */
  latestTarget(): DeliveryTarget | null {
    const row = this.sql
      .exec<Row>(
        `SELECT deliver FROM duet_ledger WHERE deliver IS NOT NULL AND json_extract(deliver, '$.place.schedule') IS NULL AND json_extract(deliver, '$.place.github') IS NULL ORDER BY seq DESC LIMIT 1`,
      )
      .toArray()[0];
    return row ? readDeliverColumn(row.deliver).deliver : null;
  }

  /** How many answers for `platform` are undelivered at `now`. */
  waiting(platform: DeliveryPlatform, now: number): number {
    return Number(
      this.sql.exec<Row>(`SELECT COUNT(*) AS n FROM duet_ledger WHERE ${UNDELIVERED} AND json_extract(deliver, '$.platform') = ?`, now - IDEMPOTENCY_TTL_MS, platform).one().n,
    );
  }
}
