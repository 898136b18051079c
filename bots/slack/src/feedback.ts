import type { SlackOut } from "./slack-api.ts";

/**
 * What people see on their mention while Duet works: 👀 straight away, then ✅
 * when the answer is posted or ⚠️ when it failed.
 *
 * The 👀 is also the claim on the message. Slack answers `already_reacted` when
 * this bot has reacted before, and that answer is the same for every replica and
 * survives restarts, so a redelivered event (a retry, or the same event after a
 * restart) finds the claim taken and posts nothing. For that reason 👀 stays on
 * the message after the answer; removing it would let a late retry answer twice.
 */

export const REACTION_WORKING = "eyes";
export const REACTION_DONE = "white_check_mark";
export const REACTION_FAILED = "warning";

export interface MessageRef {
  channel: string;
  ts: string;
}

/**
 * "claimed": this delivery owns the answer. "taken": another delivery already
 * claimed it. "unknown": Slack did not say (the reaction failed); the caller
 * answers anyway and relies on the Worker's idempotency key for a single turn.
 */
export type Claim = "claimed" | "taken" | "unknown";

export async function claimAndShowWorking(out: SlackOut, msg: MessageRef): Promise<Claim> {
  const res = await out.react(msg.channel, msg.ts, REACTION_WORKING);
  return res === "added" ? "claimed" : res === "taken" ? "taken" : "unknown";
}

export async function showDone(out: SlackOut, msg: MessageRef, ok: boolean): Promise<void> {
  await out.react(msg.channel, msg.ts, ok ? REACTION_DONE : REACTION_FAILED);
}
