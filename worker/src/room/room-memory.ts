import type { DismissResponse, ForgetResponse, MemoryResponse, PinFactRequest, PinResponse, ProposalClick } from "@duet/shared";
import type { RoomControl } from "../control/room-control.ts";
import { factLine, PinnedFacts } from "../memory/pinned-facts.ts";
import { ProposedFacts } from "../memory/proposed-facts.ts";

/**
 * What a room remembers on purpose: the facts people pinned and the ones the
 * model proposed, each change audited with who made it in the same
 * transaction. The rolling summary is the room's too, but it follows turns,
 * not people, so it stays with them.
 */
export class RoomMemory {
  readonly facts: PinnedFacts;
  /** Facts the model proposed, waiting for a person's Pin or Dismiss. */
  readonly proposed: ProposedFacts;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly control: RoomControl,
    private readonly redact: (text: string) => string,
    /** Whether the room holds a summary of its older conversation. */
    private readonly hasSummary: () => boolean,
  ) {
    this.facts = new PinnedFacts(storage.sql);
    this.proposed = new ProposedFacts(storage.sql);
  }

  /**
   * Pins a fact (redacted first: a secret pasted into it is never kept) and
   * audits it, together: two rows. The same fact again is found, not pinned twice.
   */
  remember(req: PinFactRequest): PinResponse {
    const by = { userId: req.userId, ...(req.userName ? { userName: req.userName } : {}) };
    const result = this.storage.transactionSync(() => {
      const out = this.facts.pin(this.redact(req.fact), by, Date.now());
      if (!out.already) this.control.audit.record([{ at: out.pinned.at, kind: "remember", fact: out.pinned.text, requestedBy: req.userId }]);
      return out;
    });
    return { ...result, ...this.facts.view() };
  }

  /** The pinned facts, and when a person last reset the room (a reset's buttons carry it back). */
  view(): MemoryResponse {
    return { ...this.facts.view(), resetAt: this.control.lastResetAt(), ...(this.hasSummary() ? { summary: true } : {}) };
  }

  /** Pins the fact the model proposed as `id`, for the person who clicked Pin: the proposal goes, the pin is audited with them. */
  pinProposed(id: string, click: ProposalClick): PinResponse {
    const by = { userId: click.userId, ...(click.userName ? { userName: click.userName } : {}) };
    // One transaction: a room too full to pin it keeps the proposal for a click after a forget.
    const result = this.storage.transactionSync(() => {
      const { fact } = this.proposed.take(id);
      const out = this.facts.pin(fact, by, Date.now());
      if (!out.already) this.control.audit.record([{ at: out.pinned.at, kind: "remember", fact: out.pinned.text, requestedBy: click.userId }]);
      return out;
    });
    return { ...result, ...this.facts.view() };
  }

  /** Drops the proposal `id` without pinning anything. */
  dismissProposed(id: string): DismissResponse {
    return { dismissed: this.proposed.take(id) };
  }

  /** Unpins fact number `n`, audited with who did it. */
  forget(n: number, userId?: string): ForgetResponse {
    const forgotten = this.storage.transactionSync(() => {
      const gone = this.facts.forget(n);
      this.control.audit.record([{ at: Date.now(), kind: "forget", fact: gone.text, ...(userId ? { requestedBy: userId } : {}) }]);
      return gone;
    });
    return { forgotten, ...this.facts.view() };
  }

  /** The pinned facts as the model's context lists them. */
  lines(): string[] {
    return this.facts.list().map(factLine);
  }

  /** A reset: the proposals always go; the pins unless the person resetting kept them. */
  wipe(keepPins: boolean): void {
    this.proposed.wipe();
    if (!keepPins) this.facts.wipe();
  }
}
