import type { Outcome } from "../outcome.ts";
import { markReplayed } from "../outcome.ts";

/**
 * Idempotency for the bots' retries. A key answered within the replay window
 * gets its stored answer again; a key whose turn is still running joins it.
 * Either way the answer is marked `replayed` and nothing runs twice.
 */
export class Replays {
  private readonly inflight = new Map<string, Promise<Outcome>>();

  /** The answer a retry of `key` gets, or null when the key is new. `stored` reads the ledger. */
  async find(key: string, stored: () => Outcome | null): Promise<Outcome | null> {
    const done = stored();
    if (done) return markReplayed(done);
    const running = this.inflight.get(key);
    return running ? markReplayed(await running) : null;
  }

  /** Makes `key` joinable until `answer` settles. */
  track(key: string, answer: Promise<Outcome>): Promise<Outcome> {
    this.inflight.set(key, answer);
    void answer.finally(() => this.inflight.delete(key)).catch(() => undefined);
    return answer;
  }
}
