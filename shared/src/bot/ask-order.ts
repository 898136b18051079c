import { within } from "./within.ts";

/**
 * Questions to one room go in the order people asked them. A front end takes
 * a place when the question arrives (before it looks up names or files, calls
 * whose answers come back in any order); the ask is sent once the ask placed
 * before it was sent, and carries its place (ASK_ORDER_HEADER: this process,
 * its number, and the number of the ask before it to the same room). The room
 * admits an ask only once the one before it reached the room (or
 * ASK_ORDER_WAIT_MAX_MS passed), so two asks sent a moment apart, whose
 * requests may overtake each other on the way, still join the line in the
 * order asked. Asks are not held for the one before to be admitted: a burst's
 * fifty asks are all in the room's line within about one round trip, so each
 * person is told their place at once, however slow a round trip is.
 *
 * An ask never sent (its front end failed before asking, or never asks, as for
 * an empty mention) holds the next one ASK_ORDER_LINE_MAX_MS at most, though
 * the front ends say `admitted` for those at once.
 *
 * Answers show in the same order: an answer's first message waits until the
 * answer asked before it in the room showed its own (or ended without one).
 * The room answers its line in order, but each answer comes back on its own
 * connection, and two that arrive a moment apart may be read in either order.
 */

/** The header an ask's place travels in: `<process>:<number>[:<number of the ask before>]`. */
export const ASK_ORDER_HEADER = "duet-ask-order";
/**
 * Longest the room waits for the ask before to reach it. That ask was sent
 * first, so it is normally there within milliseconds; one lost on the way (a
 * front end that failed, a connection refused) holds the next this long.
 */
export const ASK_ORDER_WAIT_MAX_MS = 5_000;
/** Longest a front end waits for the ask placed before to be sent at all (it may be looking up names or files). */
export const ASK_ORDER_LINE_MAX_MS = 60_000;
/**
 * Longest an answer waits for the one asked before it to show. That answer was
 * given first, so it normally shows within a channel's pace; a platform call
 * that hangs holds the next answer this long.
 */
export const ASK_SHOW_WAIT_MAX_MS = 10_000;

/** An ask's place, as the room reads it from ASK_ORDER_HEADER. */
export interface AskTicket {
  /** The asking process (any id of its own). */
  proc: string;
  /** This ask's number in the process. */
  seq: number;
  /** The number of the ask placed before it to the same room, when that one was not yet admitted. */
  after?: number;
}

const TICKET = /^([A-Za-z0-9-]{1,64}):(\d{1,15})(?::(\d{1,15}))?$/;

/** The ticket in a header's value; null when it is not one. */
export function parseAskTicket(raw: string): AskTicket | null {
  const m = TICKET.exec(raw);
  if (!m) return null;
  return { proc: m[1], seq: Number(m[2]), ...(m[3] !== undefined ? { after: Number(m[3]) } : {}) };
}

export const askTicketHeader = (t: AskTicket): string => `${t.proc}:${t.seq}${t.after !== undefined ? `:${t.after}` : ""}`;

export interface AskPlace {
  /** The place as the room reads it (ASK_ORDER_HEADER's value). */
  readonly ticket: string;
  /** Resolves when the ask placed before this one was sent (or the wait ran out); this one is then sent. */
  ready(): Promise<void>;
  /** This ask was admitted (or failed, or was never sent): a quiet room's place is forgotten. Idempotent. */
  admitted(): void;
  /**
   * Resolves when the answer asked before this one in the room showed (or
   * ended, or ASK_SHOW_WAIT_MAX_MS passed); null when none is waiting to, so
   * this answer may show at once.
   */
  shownBefore(): Promise<void> | null;
  /** This answer's first message is posted (or it will show none): the next answer may show. Idempotent. */
  shown(): void;
  /** The ask is over, shown or not: admitted() and shown() both. */
  ended(): void;
}

interface Taken {
  seq: number;
  /** Resolves when the ask is sent (its ready() resolved) or done. */
  sent: Promise<void>;
  /** Resolves when it was admitted, failed or will never be sent. */
  done: Promise<void>;
}

interface Showing {
  /** Resolves when the answer showed or ended. */
  shown: Promise<void>;
  done: boolean;
}

export class AskOrder {
  /** Per room, the newest place not yet admitted: the next place follows it. */
  private readonly tails = new Map<string, Taken>();
  /** Per room, the newest answer not yet shown: the next answer shows after it. */
  private readonly showing = new Map<string, Showing>();
  private readonly proc = crypto.randomUUID();
  private seq = 0;

  constructor(
    private readonly lineMaxMs = ASK_ORDER_LINE_MAX_MS,
    private readonly showMaxMs = ASK_SHOW_WAIT_MAX_MS,
  ) {}

  /** Takes the next place for `room`, synchronously, behind every place taken before it. */
  take(room: string): AskPlace {
    const before = this.tails.get(room);
    let admit!: () => void;
    let send!: () => void;
    const done = new Promise<void>((resolve) => (admit = resolve));
    const sent = new Promise<void>((resolve) => (send = resolve));
    const mine: Taken = { seq: ++this.seq, sent: Promise.race([sent, done]), done };
    this.tails.set(room, mine);
    // The last place admitted leaves nothing behind: a quiet room costs no memory.
    void done.then(() => {
      if (this.tails.get(room) === mine) this.tails.delete(room);
    });
    // An answer counts as shown once it and every answer before it did: one that ends without showing (an empty
    // question) still keeps the answers after it behind the ones before it.
    const previous = this.showing.get(room);
    const previousShown = previous && !previous.done ? within(previous.shown, this.showMaxMs).then(() => undefined) : null;
    let show!: () => void;
    const own = new Promise<void>((resolve) => (show = resolve));
    const showing: Showing = { shown: Promise.all([own, previousShown]).then(() => undefined), done: false };
    this.showing.set(room, showing);
    void showing.shown.then(() => {
      showing.done = true;
      if (this.showing.get(room) === showing) this.showing.delete(room);
    });
    return {
      ticket: askTicketHeader({ proc: this.proc, seq: mine.seq, ...(before ? { after: before.seq } : {}) }),
      ready: async () => {
        if (before) await within(before.sent, this.lineMaxMs);
        send();
      },
      admitted: () => admit(),
      shownBefore: () => (previous && !previous.done ? previousShown : null),
      shown: show,
      ended: () => (admit(), show()),
    };
  }

  /** Rooms with a place not yet admitted (for tests and metrics). */
  get rooms(): number {
    return this.tails.size;
  }

  /** Rooms with an answer not yet shown (for tests). */
  get unshown(): number {
    return this.showing.size;
  }
}
