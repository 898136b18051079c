import { DuetError } from "@duet/shared";

/** Most keys whose claimant a room remembers; past it the oldest is forgotten. */
export const CLAIMANTS_KEPT = 1_000;

/**
 * Which delivery claimed each recent idempotency key (CLAIM_HEADER). Every
 * delivery of an event comes to the same room (the room is the channel or the
 * thread), so the room can tell a platform's second delivery, refused, from
 * the first delivery's own retry after a lost connection, which follows the
 * turn as before.
 *
 * Kept in memory only. A claimant forgotten (past CLAIMANTS_KEPT, or a new
 * instance after an eviction) is refused too: a claimed ask keeps its answer
 * for delivery, so a refused first delivery still gets its answer posted by
 * the outbox, while letting a stranger follow would post the answer twice.
 */
export class Claimants {
  private readonly owners = new Map<string, string>();

  constructor(private readonly kept = CLAIMANTS_KEPT) {}

  /** `claimant` asked first with `key`: its later requests follow the turn. */
  own(key: string, claimant: string): void {
    this.owners.delete(key);
    this.owners.set(key, claimant);
    if (this.owners.size > this.kept) this.owners.delete(this.owners.keys().next().value as string);
  }

  /** For a key already asked: refuses a claimant other than the first (no claimant: nothing to check). */
  follow(key: string, claimant: string | undefined): void {
    if (claimant === undefined || this.owners.get(key) === claimant) return;
    throw new DuetError("answered_elsewhere", "another delivery of this event asked first; its answer is posted there");
  }
}
