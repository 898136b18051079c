import { z } from "zod";
import type { GuardedAction } from "./types.ts";

/**
 * The access settings both bots read the same way: which list guards each
 * action when some are unset, and whether a person may decide their own proposal.
 */

/** `DUET_APPROVE_OWN`: `yes` (default) lets a person run or skip a command proposed for their own question; `no` leaves it to someone else. */
export const approveOwnVar = z.enum(["yes", "no"], { error: "DUET_APPROVE_OWN must be yes or no" }).default("yes");

/**
 * Each action's list from the lists as set (empty: unset). Approving and
 * changing the policy follow the run list when unset: someone who may not run
 * commands could otherwise run one by asking under `approve` and clicking Run,
 * or by switching the room to `auto` and asking. Reset stays open when unset.
 * All empty: everyone may do everything.
 */
export function accessLists(set: Record<GuardedAction, string[]>): Record<GuardedAction, string[]> {
  const orRun = (list: string[]) => (list.length > 0 ? list : set.run);
  return { run: set.run, approve: orRun(set.approve), policy: orRun(set.policy), reset: set.reset };
}
