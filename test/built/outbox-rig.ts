import { startStack, type Stack } from "../helpers/stack.ts";
import { startWorkerTap, type TappedCall, type WorkerTap } from "../helpers/worker-tap.ts";
import { buildBots, type Built } from "./harness.ts";

/**
 * What the outbox tests of the built bots share: the bots as the image runs
 * them, a Worker that offers an answer unconfirmed for half a second to the
 * outbox (15 s in production), and a tap between them that records and can
 * hold what a bot asks.
 */
export interface OutboxRig {
  built: Built;
  stack: Stack;
  tap: WorkerTap;
  close(): Promise<void>;
}

export async function startOutboxRig(): Promise<OutboxRig> {
  const built = await buildBots();
  const stack = await startStack({ vars: { DUET_DELIVERY_GRACE_MS: "500" } });
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
