import { AnswersInFlight } from "../bot/answers-in-flight.ts";
import type { WorkerClient } from "../client/client.ts";
import { CHANNEL_MESSAGE_INTERVAL_MS, ChannelPace, type SharedSlots } from "../live/channel-pace.ts";

/** The scope of the channels of a bot run with one workspace's token (no OAuth), whose keys name no workspace. */
const TOKEN_WORKSPACE = "bot-token";

/**
 * The channel pace the Slack bot's replicas share, kept in the Worker
 * (`POST /api/pace/:scope`). A ChannelPace key is `workspace/channel` (a Slack
 * channel id is its workspace's own), and each workspace is one scope. Discord
 * needs none: a guild's events reach one shard process, which alone posts there.
 */
export class WorkerPaceSlots implements SharedSlots {
  private failing = false;
  /** This process, to the Worker: a slot after its own needs no margin. */
  private readonly holder = crypto.randomUUID();

  constructor(
    private readonly worker: Pick<WorkerClient, "paceSlot" | "paceEnded">,
    private readonly log: (line: string) => void,
  ) {}

  async wait(key: string, intervalMs: number): Promise<number> {
    const { scope, channel } = placeOf(key);
    try {
      const { waitMs } = await this.worker.paceSlot(scope, { channel, intervalMs, holder: this.holder });
      if (this.failing) this.log("The Worker's channel pace answers again; new messages follow it");
      this.failing = false;
      return waitMs;
    } catch (err) {
      // Said once per outage: while the Worker cannot answer, each new message would say it again.
      if (!this.failing) this.log(`The Worker's channel pace did not answer (${(err as Error).message}); new messages follow this process's pace alone`);
      this.failing = true;
      throw err;
    }
  }

  ended(key: string): void {
    const { scope, channel } = placeOf(key);
    // Not awaited, not retried: a lost word only leaves the next replica's slot the margin later.
    this.worker.paceEnded(scope, { channel, holder: this.holder }).catch(() => undefined);
  }
}

/** A ChannelPace key (`workspace/channel`) as the Worker's scope and channel. */
function placeOf(key: string): { scope: string; channel: string } {
  const cut = key.lastIndexOf("/");
  const workspace = cut >= 0 ? key.slice(0, cut) : "";
  return { scope: `slack-${workspace || TOKEN_WORKSPACE}`, channel: key.slice(cut + 1) };
}

/**
 * What one bot process posts with. `shared`: other processes answer the same
 * app (replicas), so the pace of new messages per channel is agreed through
 * the Worker (one a second across them all; this process's own when the
 * Worker does not answer), and the answers this one is still posting are held
 * in the Worker so no other replica's outbox delivers them meanwhile. Alone,
 * neither is needed and neither is paid: a shared slot is a round trip to the
 * Worker before each new message, and a hold is a row written per answer.
 */
export function replicaPosting(
  worker: Pick<WorkerClient, "paceSlot" | "paceEnded" | "holdDelivery">,
  log: (line: string) => void,
  shared: boolean,
  /** Told how long each new message waited for its channel's turn (ms). */
  onWait?: (ms: number) => void,
  /** Least time between two new messages in one channel. */
  intervalMs = CHANNEL_MESSAGE_INTERVAL_MS,
): { pace: ChannelPace; answering: AnswersInFlight } {
  const paced = { intervalMs, ...(onWait ? { onWait } : {}) };
  if (!shared) return { pace: new ChannelPace(paced), answering: new AnswersInFlight({ log }) };
  return {
    pace: new ChannelPace({ ...paced, slots: new WorkerPaceSlots(worker, log) }),
    answering: new AnswersInFlight({ renew: (room, key) => worker.holdDelivery(room, key), log }),
  };
}
