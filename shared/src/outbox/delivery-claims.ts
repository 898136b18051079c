import type { WorkerClient } from "../client/client.ts";
import { RecentIds } from "../bot/recent-ids.ts";

/**
 * "Is this delivery mine to answer?" for a bot that may run as several
 * replicas. A platform redelivers an event to whichever replica it reaches
 * (a Slack retry through a load balancer, a Discord message replayed on a
 * resumed gateway), so the answer comes from the Worker's claims, shared by
 * every replica. This process's own RecentIds only saves the Worker a call
 * for a repeat it has seen itself.
 */
export class DeliveryClaims {
  constructor(
    private readonly worker: Pick<WorkerClient, "claimEvent">,
    private readonly log: (line: string) => void,
    private readonly local = new RecentIds(),
  ) {}

  /**
   * False for a repeat this process saw itself; no Worker call. For a delivery
   * whose ask claims it in its room (CLAIM_HEADER, with `newClaimant()`),
   * which refuses any other replica's delivery of the same event.
   */
  firstHere(scope: string, id: string): boolean {
    return this.local.first(`${scope}/${id}`);
  }

  /**
   * True when this replica is the first to take delivery `id` in `scope`
   * (`slack-T123`, `discord-456`). When the Worker cannot say, the delivery is
   * answered: the turn's idempotency key still keeps its commands from running
   * twice, and a missing answer is worse than a rare second one.
   */
  async first(scope: string, id: string): Promise<boolean> {
    if (!this.local.first(`${scope}/${id}`)) return false;
    try {
      return (await this.worker.claimEvent(scope, id)).first;
    } catch (err) {
      this.log(`Could not claim delivery ${id} in ${scope} (${(err as Error).message}); answering it`);
      return true;
    }
  }
}

/** A claimant for one delivery's ask (CLAIM_HEADER): unique, so no other delivery of the event shares it. */
export const newClaimant = (): string => crypto.randomUUID();
