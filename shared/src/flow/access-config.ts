import { z } from "zod";

/**
 * The access settings both bots read the same way: who may approve when no
 * approve list is set, and whether a person may decide their own proposal.
 */

/** `DUET_APPROVE_OWN`: `yes` (default) lets a person run or skip a command proposed for their own question; `no` leaves it to someone else. */
export const approveOwnVar = z.enum(["yes", "no"], { error: "DUET_APPROVE_OWN must be yes or no" }).default("yes");

/**
 * Who may approve: the approve list when set, else the run list, so someone
 * who may not run commands cannot run one by asking under `approve` and
 * clicking Run on the proposal. Both empty: everyone.
 */
export function approveList(approve: string[], run: string[]): string[] {
  return approve.length > 0 ? approve : run;
}
