import { keptQuote, type QuotedMessage, type WorkerClient } from "@duet/shared";

/**
 * The messages people opened "Ask Duet" on, as Discord showed them in the
 * command (its text, author, and its attachments' names, sizes and CDN links), kept in the message's
 * room in the Worker until the modal is submitted (for at most an
 * interaction's 15 minutes). Discord sends a message's text with the command
 * but not to a later read by a bot without the Message Content intent (Duet
 * asks for none), so the submission takes the text kept there: a bot
 * restarted meanwhile (a deploy, a crash) still has it.
 */
export class AskedMessages {
  /** Keeps sent and not yet answered, by key: a submission quicker than its keep waits for it before taking. */
  private readonly keeping = new Map<string, Promise<boolean>>();

  constructor(
    private readonly worker: Pick<WorkerClient, "keepAsked" | "takeAsked">,
    private readonly warn: (line: string) => void,
  ) {}

  /** Keeps `msg` for `userId`'s modal on `messageId` in `room`; false (and logged) when the Worker did not keep it. */
  remember(room: string, userId: string, messageId: string, msg: QuotedMessage): Promise<boolean> {
    const key = askedKey(userId, messageId);
    const kept = this.worker.keepAsked(room, key, keptQuote(msg)).then(
      () => true,
      (err) => {
        this.warn(`could not keep message ${messageId} for ${userId}'s Ask Duet in ${room}: ${String(err)}`);
        return false;
      },
    );
    this.keeping.set(key, kept);
    void kept.then(() => {
      if (this.keeping.get(key) === kept) this.keeping.delete(key);
    });
    return kept;
  }

  /** The message as `userId` saw it when they opened the modal, once; null when none is kept (or the Worker could not say). */
  async take(room: string, userId: string, messageId: string): Promise<QuotedMessage | null> {
    const key = askedKey(userId, messageId);
    await this.keeping.get(key);
    try {
      return (await this.worker.takeAsked(room, key)).message;
    } catch (err) {
      this.warn(`could not take message ${messageId} for ${userId}'s Ask Duet from ${room}: ${String(err)}`);
      return null;
    }
  }
}

/** One person's modal on one message: two snowflakes, as the Worker's key takes them. */
const askedKey = (userId: string, messageId: string) => `${userId}-${messageId}`;
