import { type AuditEntry, prClosedText, prCommentAsk, prCommentNote, prMergedText, prReplyText, sanitizeChatText, type DeliveryTarget, type MessageRequest, type MessageResponse } from "@duet/shared";
import type { PrProposals } from "../control/pr-proposals.ts";
import type { GithubAppConfig } from "../github/app-config.ts";
import { postPullComment } from "../github/issue-comments.ts";
import type { InstallationTokens } from "../github/installation-tokens.ts";
import { installationOf } from "../github/repo-access.ts";
import { COMMENT_MAX_CHARS, type PrClosed, type PrComment, type PrEvent } from "../github/webhook-events.ts";
import type { Outcome } from "../outcome.ts";
import type { Outbox } from "../outbox/outbox.ts";
import type { TurnLedger } from "../storage/turn-ledger.ts";
import { chatTargetOf } from "./chat-target.ts";
import { PULL_PERMISSIONS } from "./repo-pr.ts";
import { keepForDelivery } from "./scheduled-runs.ts";

/** What the room's side of GitHub's webhook needs from the room. */
export interface PrTalkParts {
  roomId: string;
  proposals: PrProposals;
  ledger: TurnLedger;
  outbox: Outbox;
  redact: (text: string) => string;
  /** Writes an entry in the room's audit log. */
  audit: (entry: AuditEntry) => void;
  /** Puts a question to the room as a turn, under its run policy, in its queue. */
  ask: (req: MessageRequest) => Promise<Outcome>;
  github: () => { app: InstallationTokens; config: GithubAppConfig } | null;
  now?: () => number;
}

/**
 * Where the room says something of its pull request: the conversation it
 * was opened from, else the place its room id names; marked with the pull request (`github`): no bot
 * follows such an answer live, so the outbox offers it at once, without the
 * grace time it gives a bot to deliver its own.
 */
function targetFor(roomId: string, opened: DeliveryTarget | null | undefined, event: PrEvent): DeliveryTarget | null {
  const target = opened ?? chatTargetOf(roomId);
  if (!target) return null;
  // A schedule's mark would make the bot post it as that schedule's run.
  const { schedule: _, ...place } = target.place;
  return { platform: target.platform, place: { ...place, github: `${event.repo}#${event.number}`.slice(0, 200) } };
}

/** What the room did with an event: `handled` names it; false when the pull request is not this room's (any more). */
export type PrTalkResult = { handled: "merged" | "closed" | "comment" } | { handled: false; reason: string };

/**
 * The room's pull request talking back: GitHub says it was merged or
 * closed (a note in the room's thread, through the outbox, so it reaches the
 * thread with no bot running when it came), or someone mentioned the App in
 * a comment on it (a turn whose answer goes to the thread, as any answer
 * does, and back to the pull request as a reply comment).
 */
export class PrTalk {
  private readonly now: () => number;

  constructor(private readonly parts: PrTalkParts) {
    this.now = parts.now ?? Date.now;
  }

  /** `deliveryId`: GitHub's id of the delivery, the key a note is kept under. */
  async event(event: PrEvent, deliveryId: string): Promise<PrTalkResult> {
    const opened = this.parts.proposals.current();
    // The index names the room that opened it; the room checks it still holds it (a reset forgets it).
    if (!opened?.opened || opened.opened.number !== event.number || opened.proposal.repo.toLowerCase() !== event.repo.toLowerCase()) {
      return { handled: false, reason: "this room holds no such pull request" };
    }
    if (event.kind === "closed") return this.closed(event, deliveryId);
    return this.comment(event);
  }

  private async closed(event: PrClosed, deliveryId: string): Promise<PrTalkResult> {
    const held = this.parts.proposals.current();
    const target = targetFor(this.parts.roomId, held?.opened?.target, event);
    const handled = event.merged ? "merged" : "closed";
    // The audit says what became of the room's pull request even when no thread is known to tell.
    this.parts.audit({ at: this.now(), kind: event.merged ? "pr-merged" : "pr-closed", repo: event.repo, branch: held?.proposal.branch, url: event.url || held?.opened?.url, decidedBy: event.by });
    if (!target) return { handled };
    const text = (event.merged ? prMergedText : prClosedText)(event.repo, event.number, event.by, event.url);
    keepForDelivery(this.parts.ledger, { text: `${event.repo}#${event.number}`, idempotencyKey: `github-${deliveryId}`, deliver: target }, this.parts.redact(text));
    await this.parts.outbox.offerNow(target.platform);
    return { handled };
  }

  /**
   * Starts the turn and answers at once (GitHub waits 10 s for a webhook's
   * answer; a turn may take longer). The comment's id is the turn's key: the
   * same comment delivered again joins or replays that turn, and a replayed
   * answer is not posted on the pull request again.
   */
  private async comment(event: PrComment): Promise<PrTalkResult> {
    const target = targetFor(this.parts.roomId, this.parts.proposals.current()?.opened?.target, event);
    const said = sanitizeChatText(event.body);
    const comment = said.length > COMMENT_MAX_CHARS ? `${said.slice(0, COMMENT_MAX_CHARS - 1)}…` : said;
    // The thread sees the comment before Duet's answer to it (kept first, so delivered first).
    if (target) {
      keepForDelivery(this.parts.ledger, { text: `${event.repo}#${event.number}`, idempotencyKey: `github-comment-note-${event.commentId}`, deliver: target }, this.parts.redact(prCommentNote(event, comment || "(empty)")));
      await this.parts.outbox.offerNow(target.platform);
    }
    const request: MessageRequest = {
      text: prCommentAsk(event, comment || "(empty)"),
      userId: `github:${event.author}`,
      userName: event.author,
      idempotencyKey: `github-comment-${event.commentId}`,
      ...(target ? { deliver: target } : {}),
    };
    this.parts
      .ask(request)
      .then(async (out) => {
        if (target) await this.parts.outbox.offerNow(target.platform);
        if (out.status !== 200) {
          console.error(`a comment on ${event.repo}#${event.number} was not answered (${out.status})`, out.body);
          return;
        }
        const answer = out.body as MessageResponse;
        if (!answer.replayed) await this.reply(event, answer.reply);
      })
      .catch((err) => console.error(`the answer to a comment on ${event.repo}#${event.number} could not be posted`, err));
    return { handled: "comment" };
  }

  /** The answer as a comment on the pull request, with a token that may write its pull requests and nothing else. */
  private async reply(event: PrComment, answer: string): Promise<void> {
    const github = this.parts.github();
    if (!github) return;
    const now = this.now();
    const installation = await installationOf(github.app, github.config, event.repo, now);
    const token = await github.app.token(installation, event.repo.split("/")[1], PULL_PERMISSIONS);
    await postPullComment(github.app, token.token, event.repo, event.number, prReplyText(event.author, answer), now);
  }
}
