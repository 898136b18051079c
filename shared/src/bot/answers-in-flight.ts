import { DELIVERY_LEASE_MS } from "../wire/delivery.ts";

/** How often a held answer's lease is renewed: three times per lease, so one lost renewal still leaves it held. */
export const HOLD_RENEW_MS = DELIVERY_LEASE_MS / 3;

export interface AnswersInFlightOptions {
  /**
   * Keeps the answer leased to this process in the Worker (WorkerClient.holdDelivery),
   * so no other replica's outbox hands it out while this one still posts it.
   */
  renew?(room: string, key: string): Promise<unknown>;
  /** How often `renew` is called while the answer is held (HOLD_RENEW_MS). */
  renewEveryMs?: number;
  log?(line: string): void;
}

interface Held {
  timer: ReturnType<typeof setInterval> | null;
}

/**
 * The answers this process is posting itself, by room and idempotency key. An
 * answer waiting its turn in a busy channel (ChannelPace) can stay unconfirmed
 * past the room's delivery grace, when the outbox offers it; delivering it as
 * well would post it twice. This process's delivery skips the keys held here;
 * every other replica's is kept off by the lease `renew` keeps in the Worker.
 * If this process dies the renewals stop, the lease lapses and the outbox
 * delivers the answer.
 */
export class AnswersInFlight {
  private readonly keys = new Map<string, Held>();

  constructor(private readonly opts: AnswersInFlightOptions = {}) {}

  /** Marks the answer as being posted here until the returned release is called. */
  hold(room: string, key: string): () => void {
    const id = `${room}\n${key}`;
    const held: Held = { timer: null };
    this.keys.set(id, held);
    return () => {
      if (held.timer) clearInterval(held.timer);
      if (this.keys.get(id) === held) this.keys.delete(id);
    };
  }

  /**
   * The turn's answer came back and is about to be posted: from here the grace
   * runs out (a turn still running is never offered), so its lease is taken now
   * and renewed until the answer is released. Nothing is written while the turn runs.
   */
  answered(room: string, key: string): void {
    const held = this.keys.get(`${room}\n${key}`);
    if (!held || !this.opts.renew || held.timer) return;
    this.renew(room, key);
    held.timer = setInterval(() => this.renew(room, key), this.opts.renewEveryMs ?? HOLD_RENEW_MS);
    held.timer.unref?.();
  }

  has(room: string, key: string): boolean {
    return this.keys.has(`${room}\n${key}`);
  }

  private renew(room: string, key: string): void {
    this.opts.renew?.(room, key).catch((err) => this.opts.log?.(`Could not keep the answer in ${room} leased while it is posted: ${(err as Error).message}`));
  }
}
