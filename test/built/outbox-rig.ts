import { QUICK_DELIVERY } from "../helpers/quick-delivery.ts";
import { startStack, type Stack } from "../helpers/stack.ts";
import { startWorkerTap, type TappedCall, type WorkerTap } from "../helpers/worker-tap.ts";
import { buildBots, type Built } from "./harness.ts";

/**
 * What the outbox tests of the built bots share: the bots as the image runs
 * them, a Worker that offers an answer unconfirmed for half a second to the
 * outbox and leases it to a bot for 3 s (15 s each in production), and a tap
 * between them that records and can hold what a bot asks.
 */
export interface OutboxRig {
  built: Built;
  stack: Stack;
  tap: WorkerTap;
  close(): Promise<void>;
}

export async function startOutboxRig(): Promise<OutboxRig> {
  const built = await buildBots();
  const stack = await startStack({ vars: QUICK_DELIVERY });
  const tap = await startWorkerTap(stack.workerUrl);
  return {
    built,
    stack,
    tap,
    async close() {
      await tap.close();
      await stack.stop();
      built.remove();
    },
  };
}

/** A bot's confirm to the room of `channel`; `final` defaults to true, as the Worker reads it. */
export const confirms = (final: boolean, channel: string) => (c: TappedCall) =>
  c.method === "POST" && c.path.endsWith("/deliveries") && c.path.includes(channel) && ((c.body as { final?: boolean })?.final ?? true) === final;
