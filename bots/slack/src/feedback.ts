import { ANSWER_NOTES, keepRenewing } from "@duet/shared";
import type { Logger } from "@slack/bolt";
import type { SlackOut } from "./slack-api.ts";
import type { TurnStatus } from "./surfaces.ts";

/**
 * What people see on their mention while Duet works: 👀 straight away, then ✅
 * when the answer is posted or ⚠️ when it failed.
 *
 * Where no turn claims the message (a file upload first, an empty mention's
 * hint) the 👀 is also a claim on it. Slack answers `already_reacted` when this
 * bot has reacted before, and that answer is the same for every replica and
 * survives restarts, so a redelivered event finds the claim taken and posts
 * nothing. For that reason 👀 stays on the message after the answer; removing
 * it would let a late retry answer twice. A question's claim is its ask's, in
 * its room (turn.ts); there the 👀 goes out beside the ask and is feedback only.
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

export const STATUS_WORKING = ANSWER_NOTES.workingStatus;
/** Slack drops a thread status after 2 minutes without a message; renewed well before. */
export const STATUS_RENEW_MS = 90_000;
/** Errors that mean thread statuses will never work for this app here (an old or restricted workspace). */
const STATUS_UNAVAILABLE = new Set(["unknown_method", "missing_scope", "not_allowed_token_type", "method_deprecated", "not_allowed", "access_denied"]);

/**
 * "Duet is working on it…" under the thread while a turn runs, on top of the 👀:
 * the status Slack shows for AI apps (assistant.threads.setStatus, which takes
 * chat:write since March 2026 and works in channel threads). Slack clears it when
 * Duet posts in the thread. Never delays or breaks an answer: calls are not
 * awaited on the way in, and a workspace that refuses them is not asked again.
 */
export class ThreadStatus {
  private unavailable = false;

  constructor(
    private readonly out: SlackOut,
    private readonly logger: Logger,
    private readonly renewMs = STATUS_RENEW_MS,
  ) {}

  /**
   * This status under one thread (none at the top level of a DM), for one turn.
   * Slack clears it when the answer's first message is posted, so the end of a
   * live answer clears it again only when one of its calls ended after that post
   * was sent (a renewal racing the post could land after it): one call fewer per
   * answer otherwise.
   */
  at(channel: string, threadTs: string | undefined): TurnStatus {
    let posting = false;
    let landedLate = false;
    const set = async () => {
      try {
        await this.set(channel, threadTs!, STATUS_WORKING);
      } finally {
        if (posting) landedLate = true;
      }
    };
    return {
      show: () => this.show(threadTs, set),
      clear: () => this.clear(channel, threadTs),
      posting: () => void (posting = true),
      settle: async () => {
        if (!posting || landedLate) await this.clear(channel, threadTs);
      },
    };
  }

  /** Shows the status (`set`) until the returned stop(), which waits out a call in flight (keepRenewing). */
  private show(threadTs: string | undefined, set: () => Promise<void>): () => Promise<void> {
    if (!threadTs || this.unavailable) return async () => {};
    return keepRenewing(set, this.renewMs);
  }

  /** For a turn that posted nothing (a post clears the status on Slack's side). */
  async clear(channel: string, threadTs: string | undefined): Promise<void> {
    if (threadTs && !this.unavailable) await this.set(channel, threadTs, "");
  }

  private async set(channel: string, threadTs: string, status: string): Promise<void> {
    if (this.unavailable) return;
    const error = await this.out.setStatus(channel, threadTs, status);
    if (!error) return;
    if (STATUS_UNAVAILABLE.has(error)) {
      this.unavailable = true;
      this.logger.info(`Thread status is not available here (${error}); reactions alone show progress`);
    } else {
      this.logger.debug(`assistant.threads.setStatus failed: ${error}`);
    }
  }
}
