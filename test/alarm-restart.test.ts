import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "./helpers/stack.ts";

// Long enough that the Worker is stopped before the alarm is due, so it fires in the restarted one.
const GRACE_MS = 6_000;
const ROOM = "slack-T1-CALARM";

describe("a room's alarm that fires after a Worker restart", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ vars: { DUET_DELIVERY_GRACE_MS: String(GRACE_MS) } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("is served by its room: the unconfirmed answer reaches the feed, and the room still answers by name", async () => {
    const deliver = { platform: "slack" as const, place: { channel: "CALARM" } };
    await stack.client.message(ROOM, { text: "SAY: kept until a bot confirms it", idempotencyKey: "ev-alarm", deliver });
    // The room armed its alarm for the end of the grace time; no bot confirms.
    const due = Date.now() + GRACE_MS;
    await stack.stopWorker();
    // The alarm comes due while the Worker is down, so the restarted Worker's workerd fires it first thing.
    await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now()) + 500));
    await stack.restartWorker();

    // Only the alarm announces the room in the feed: this read waits for it.
    const { items } = await stack.client.deliveries("slack", 20_000);
    expect(items.map((i) => [i.roomId, i.key, i.answer.reply])).toEqual([[ROOM, "ev-alarm", "kept until a bot confirms it"]]);
    const { messages } = await stack.client.history(ROOM);
    expect(messages.map((m) => m.text)).toEqual(["SAY: kept until a bot confirms it", "kept until a bot confirms it"]);
  });
});
