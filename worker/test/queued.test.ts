import { STREAM_EVENTS_HEADER } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { freshRoom, modelCallsWith } from "./helpers.ts";
import { release, stream, unique } from "./live-helpers.ts";

/** A client that reads the `queued` event says so; one that does not (a bot that does not read it) never gets it. */
const READS_QUEUED = { [STREAM_EVENTS_HEADER]: "queued" };

/** Waits until the fake model has the held turn's request: the room is busy with it from then on. */
async function heldByModel(hold: string): Promise<void> {
  while ((await modelCallsWith(hold)).length === 0) await scheduler.wait(20);
}

describe("a streamed turn admitted behind others", () => {
  it("says how many are ahead as its first event; the turn that starts at once says nothing of a queue", async () => {
    const room = freshRoom();
    const hold = unique("queue");
    const first = await stream(room, `HOLD:${hold} CHUNK:8 SAY: first answer`, {}, READS_QUEUED);
    await heldByModel(hold);
    const second = await stream(room, "SAY: second answer", {}, READS_QUEUED);
    const third = await stream(room, "SAY: third answer", {}, READS_QUEUED);
    // Told while the first turn is still held: nothing of theirs has run.
    expect(await second.next()).toEqual({ event: "queued", data: { ahead: 1 } });
    expect(await third.next()).toEqual({ event: "queued", data: { ahead: 2 } });
    await release(hold);
    const [a, b, c] = [await first.rest(), await second.rest(), await third.rest()];
    expect(a.filter((e) => e.event === "queued")).toEqual([]);
    expect(a[0].event).toBe("text");
    for (const [events, said] of [[b, "second answer"], [c, "third answer"]] as const) {
      expect(events.filter((e) => e.event === "queued")).toHaveLength(1);
      expect(events.at(-1)).toMatchObject({ event: "done", data: { reply: said } });
    }
  });

  it("leaves the event out for a client that did not ask for it", async () => {
    const room = freshRoom();
    const hold = unique("queue-old");
    const first = await stream(room, `HOLD:${hold} CHUNK:8 SAY: first answer`);
    await heldByModel(hold);
    const second = await stream(room, "SAY: second answer");
    await release(hold);
    await first.rest();
    const events = await second.rest();
    expect(events.filter((e) => e.event === "queued")).toEqual([]);
    expect(events[0].event).toBe("text");
    expect(events.at(-1)).toMatchObject({ event: "done", data: { reply: "second answer" } });
  });

  it("a retry by the same key joins the turn and is handed the same one `queued`, as the stream's first event", async () => {
    const room = freshRoom();
    const hold = unique("queue-retry");
    const first = await stream(room, `HOLD:${hold} CHUNK:8 SAY: first answer`, {}, READS_QUEUED);
    await heldByModel(hold);
    const key = `Ev-${hold}`;
    const asked = await stream(room, "SAY: second answer", { idempotencyKey: key }, READS_QUEUED);
    expect(await asked.next()).toEqual({ event: "queued", data: { ahead: 1 } });
    const retry = await stream(room, "SAY: second answer", { idempotencyKey: key }, READS_QUEUED);
    // The same event the turn began with, not a new place counted for the retry (which would say 2).
    expect(await retry.next()).toEqual({ event: "queued", data: { ahead: 1 } });
    await release(hold);
    await first.rest();
    const [a, b] = [await asked.rest(), await retry.rest()];
    expect(b.slice(0, -1)).toEqual(a.slice(0, -1));
    expect(b.filter((e) => e.event === "queued")).toHaveLength(1);
  });
});
