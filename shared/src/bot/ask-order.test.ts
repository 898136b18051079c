import { describe, expect, it } from "vitest";
import { AskOrder } from "./ask-order.ts";

const settle = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe("AskOrder", () => {
  it("lets an ask go only once the asks placed before it for the same room were admitted, whatever order they got ready in", async () => {
    const order = new AskOrder(60_000);
    const sent: string[] = [];
    const places = ["a", "b", "c"].map((name) => ({ name, place: order.take("room-1") }));
    const other = order.take("room-2");
    // The last placed is ready first: it still waits for the two before it.
    for (const { name, place } of [...places].reverse()) void place.ready().then(() => sent.push(name));
    void other.ready().then(() => sent.push("other room"));
    await settle();
    expect(sent).toEqual(["a", "other room"]);
    places[0].place.admitted();
    await settle();
    expect(sent).toEqual(["a", "other room", "b"]);
    places[1].place.admitted();
    places[1].place.admitted();
    await settle();
    expect(sent).toEqual(["a", "other room", "b", "c"]);
    places[2].place.admitted();
    other.admitted();
    await settle();
    expect(order.rooms).toBe(0);
  });

  it("waits at most its bound for an ask that never says it was admitted", async () => {
    const order = new AskOrder(20);
    order.take("room-1");
    const second = order.take("room-1");
    let sent = false;
    const going = second.ready().then(() => (sent = true));
    await settle();
    expect(sent).toBe(false);
    await going;
    expect(sent).toBe(true);
  });
});
