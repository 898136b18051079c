import { describe, expect, test } from "vitest";
import { BusyError, Gate } from "./queue.ts";

describe("Gate", () => {
  test("lets `max` in, queues the rest in order, and refuses past the line's length", async () => {
    const gate = new Gate(2, 2);
    const order: string[] = [];
    const a = await gate.enter();
    const b = await gate.enter();
    const c = gate.enter().then((release) => (order.push("c"), release));
    const d = gate.enter().then((release) => (order.push("d"), release));
    expect(gate.stats).toEqual({ running: 2, waiting: 2 });
    await expect(gate.enter()).rejects.toBeInstanceOf(BusyError);

    a();
    const releaseC = await c;
    expect(order).toEqual(["c"]);
    b();
    const releaseD = await d;
    expect(order).toEqual(["c", "d"]);
    releaseC();
    releaseC(); // twice is harmless
    releaseD();
    expect(gate.stats).toEqual({ running: 0, waiting: 0 });
  });
});
