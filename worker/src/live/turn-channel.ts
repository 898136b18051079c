import type { TurnStreamEvent } from "@duet/shared";

/**
 * One running turn's events, kept until it ends, so any number of clients can
 * follow it: each subscriber gets every event so far, then the rest as they
 * happen, and its iteration ends after the turn's last event (`done` or
 * `error`). A subscriber that stops reading affects nobody: the turn belongs to
 * the room, not to a connection.
 */
export class TurnChannel {
  private readonly events: TurnStreamEvent[] = [];
  private closed = false;
  private wakers: (() => void)[] = [];

  get ended(): boolean {
    return this.closed;
  }

  publish(e: TurnStreamEvent): void {
    if (this.closed) return;
    this.events.push(e);
    if (e.event === "done" || e.event === "error") this.closed = true;
    const wake = this.wakers;
    this.wakers = [];
    for (const w of wake) w();
  }

  async *subscribe(): AsyncGenerator<TurnStreamEvent, void> {
    for (let i = 0; ; ) {
      while (i < this.events.length) yield this.events[i++];
      if (this.closed) return;
      await new Promise<void>((resolve) => this.wakers.push(resolve));
    }
  }
}

/** A turn that already ended (a stored answer replayed): one `done` event. */
export async function* onlyDone(body: Extract<TurnStreamEvent, { event: "done" }>["data"]): AsyncGenerator<TurnStreamEvent, void> {
  yield { event: "done", data: body };
}
