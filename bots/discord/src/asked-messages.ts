import type { QuotedMessage } from "@duet/shared";

/**
 * The messages people opened "Ask Duet" on, as Discord showed them in the
 * command (its text, author and attachment names), until the modal is
 * submitted. Discord sends a message's text with the command but not to a
 * later read by a bot without the Message Content intent (Duet asks for
 * none), so the submit reads the text kept here. A server's interactions all
 * reach one shard process, so the one that kept it gets the submission.
 */

/** A modal left open longer than an interaction token lives (15 minutes) is not answered from memory. */
const KEEP_MS = 15 * 60_000;
/** At most this many open modals are remembered; the oldest goes first. */
const MAX_KEPT = 1_000;

export class AskedMessages {
  private readonly kept = new Map<string, { msg: QuotedMessage; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  remember(userId: string, messageId: string, msg: QuotedMessage): void {
    const key = `${userId}:${messageId}`;
    this.kept.delete(key);
    this.kept.set(key, { msg, at: this.now() });
    while (this.kept.size > MAX_KEPT) this.kept.delete(this.kept.keys().next().value!);
  }

  /** The message as `userId` saw it when they opened the modal, once; null when not kept (or kept too long). */
  take(userId: string, messageId: string): QuotedMessage | null {
    const key = `${userId}:${messageId}`;
    const found = this.kept.get(key);
    this.kept.delete(key);
    return found && this.now() - found.at <= KEEP_MS ? found.msg : null;
  }
}
