import { describe, expect, it } from "vitest";
import { AskLine } from "./ask-line.ts";

/** Every promise already settled has run its callbacks. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("AskLine", () => {
  it("holds an ask that overtook the one it follows until that one reached the room, then lets it in", async () => {
    const line = new AskLine(60_000);
    const order: string[] = [];
    const second = line.behind({ proc: "p", seq: 2, after: 1 }).then(() => order.push("second"));
    const third = line.behind({ proc: "p", seq: 3, after: 2 }).then(() => order.push("third"));
    await settle();
    expect(order).toEqual([]);
    line.reached({ proc: "p", seq: 1 });
    await second;
    expect(order).toEqual(["second"]);
    line.reached({ proc: "p", seq: 2 });
    await third;
    expect(order).toEqual(["second", "third"]);
  });

  it("lets in at once an ask whose predecessor already came, one that follows none, and another process's", async () => {
    const line = new AskLine(60_000);
    line.reached({ proc: "p", seq: 1 });
    const gone: string[] = [];
    await Promise.all([
      line.behind({ proc: "p", seq: 2, after: 1 }).then(() => gone.push("after one that came")),
      line.behind({ proc: "p", seq: 7 }).then(() => gone.push("first of its line")),
    ]);
    expect(gone.sort()).toEqual(["after one that came", "first of its line"]);
    let other = false;
    void line.behind({ proc: "q", seq: 2, after: 1 }).then(() => (other = true));
    await settle();
    // Another process's number 1 has not come: the same number of p's does not count.
    expect(other).toBe(false);
  });

  it("stops waiting for a predecessor that never comes after its bound", async () => {
    const line = new AskLine(20);
    await line.behind({ proc: "p", seq: 5, after: 4 });
  });
});
