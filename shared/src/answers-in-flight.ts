/**
 * The answers this process is posting itself, by room and idempotency key, so
 * its outbox delivery leaves them alone. An answer waiting its turn in a busy
 * channel (ChannelPace) can stay unconfirmed past the room's delivery grace;
 * the outbox then offers it, and delivering it as well would post it twice.
 * Another replica does not see these: there the answer is left to the grace.
 */
export class AnswersInFlight {
  private readonly keys = new Set<string>();

  /** Marks the answer as being posted here until the returned release is called. */
  hold(room: string, key: string): () => void {
    const id = `${room}\n${key}`;
    this.keys.add(id);
    return () => this.keys.delete(id);
  }

  has(room: string, key: string): boolean {
    return this.keys.has(`${room}\n${key}`);
  }
}
