import { DELIVERY_LEASE_MS, type DeliveryHoldResponse } from "../wire/delivery.ts";

/** Renewals per lease: three, so one lost renewal still leaves the answer held. */
const RENEWALS_PER_LEASE = 3;

export interface AnswersInFlightOptions {
  /**
   * Keeps the answer leased to this process in the Worker (WorkerClient.holdDelivery),
   * so no other replica's outbox hands it out while this one still posts it.
   * Its answer's `leaseMs` says how long the lease lasts.
   */
  renew?(room: string, key: string): Promise<DeliveryHoldResponse>;
  log?(line: string): void;
}

interface Held {
  timer: ReturnType<typeof setInterval> | null;
  /** How often `timer` renews, ms. */
  everyMs: number;
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
  /**
   * The lease the Worker last named in a hold's answer: a new hold renews at a
   * third of it until its own first answer says otherwise. DELIVERY_LEASE_MS
   * until the Worker names one (a Worker that names none leases that long).
   */
  private leaseMs = DELIVERY_LEASE_MS;

  constructor(private readonly opts: AnswersInFlightOptions = {}) {}

  /** Marks the answer as being posted here until the returned release is called. */
  hold(room: string, key: string): () => void {
    const id = `${room}\n${key}`;
    const held: Held = { timer: null, everyMs: 0 };
    this.keys.set(id, held);
    return () => {
      if (held.timer) clearInterval(held.timer);
      held.timer = null;
      if (this.keys.get(id) === held) this.keys.delete(id);
    };
  }

  /**
   * The turn's answer came back and is about to be posted: from here the grace
   * runs out (a turn still running is never offered), so its lease is taken now
   * and renewed until the answer is released, at a third of the lease the
   * Worker names. Nothing is written while the turn runs.
   */
  answered(room: string, key: string): void {
    const held = this.keys.get(`${room}\n${key}`);
    if (!held || !this.opts.renew || held.timer) return;
    this.every(room, key, held, this.leaseMs / RENEWALS_PER_LEASE);
    this.renew(room, key, held);
  }

  /**
   * An answer the outbox's feed handed to this process, leased to it from now:
   * held as `hold` holds it until the returned release, and renewed at a third
   * of the lease meanwhile, since its post may wait on a busy channel's pace
   * past the lease. The feed's hand-out took the lease, so the first renewal
   * waits its third.
   */
  handed(room: string, key: string): () => void {
    const release = this.hold(room, key);
    const held = this.keys.get(`${room}\n${key}`);
    if (held && this.opts.renew) this.every(room, key, held, this.leaseMs / RENEWALS_PER_LEASE);
    return release;
  }

  has(room: string, key: string): boolean {
    return this.keys.has(`${room}\n${key}`);
  }

  /** Renews the held answer every `everyMs` from now on. */
  private every(room: string, key: string, held: Held, everyMs: number): void {
    if (held.timer) clearInterval(held.timer);
    held.everyMs = everyMs;
    held.timer = setInterval(() => this.renew(room, key, held), everyMs);
    held.timer.unref?.();
  }

  private renew(room: string, key: string, held: Held): void {
    this.opts.renew?.(room, key).then(
      (answer) => {
        this.leaseMs = answer.leaseMs ?? DELIVERY_LEASE_MS;
        const everyMs = this.leaseMs / RENEWALS_PER_LEASE;
        // A lease other than the one the timer was set for (the first hold this process makes, a Worker whose
        // setting changed): the next renewal is a third of that lease from this answer, well inside the lease just taken.
        if (held.timer && everyMs !== held.everyMs) this.every(room, key, held, everyMs);
      },
      (err) => this.opts.log?.(`Could not keep the answer in ${room} leased while it is posted: ${(err as Error).message}`),
    );
  }
}
