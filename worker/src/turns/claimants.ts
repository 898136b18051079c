import { DuetError } from "@duet/shared";

/**
 * For a key already asked: lets the delivery that asked first follow its turn
 * (its own retry after a lost connection, or after the room was evicted) and
 * refuses any other claimant with `answered_elsewhere`. Every delivery of an
 * event comes to the same room (the room is the channel or the thread), and
 * the first claimant is kept in the turn's row, so the room can tell them
 * apart. A request without a claimant has nothing to check. A key first asked
 * without one refuses a claimant: its answer is posted by whoever asked, or by
 * the outbox, and letting a stranger follow would post it twice.
 */
export function followClaim(firstClaimant: string | null | undefined, claim: string | undefined): void {
  if (claim === undefined || firstClaimant === claim) return;
  throw new DuetError("answered_elsewhere", "another delivery of this event asked first; its answer is posted there");
}
