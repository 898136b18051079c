import { describe, expect, it } from "vitest";
import { TurnQueue } from "./turn-queue.ts";

/** A promise and the function that settles it: a barrier a test opens when it chooses. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

describe("TurnQueue", () => {
  it("runs tasks one at a time in arrival order", async () => {
    const queue = new TurnQueue();
    const log: string[] = [];
    const first = gate();
    const a = queue.run(async () => {
      log.push("a start");
      await first.opened;
      log.push("a end");
    });
    const b = queue.run(async () => void log.push("b"));
    // b waits for a however long a takes: it has not started while a is held.
    await Promise.resolve();
    expect(log).toEqual(["a start"]);
    first.open();
    await Promise.all([a, b]);
    expect(log).toEqual(["a start", "a end", "b"]);
  });

  it("keeps going after a task fails", async () => {
    const queue = new TurnQueue();
    const failed = queue.run(async () => {
      throw new Error("boom");
    });
    const next = queue.run(async () => "ran");
    await expect(failed).rejects.toThrow("boom");
    expect(await next).toBe("ran");
  });

  it("refuses at once when too many wait, and admits again once they start", async () => {
    const queue = new TurnQueue(2);
    const hold = gate();
    const started = gate();
    const running = queue.run(() => {
      started.open();
      return hold.opened;
    });
    await started.opened;
    const waiting = [queue.run(async () => 1), queue.run(async () => 2)];
    expect(() => queue.run(async () => 3)).toThrow(expect.objectContaining({ code: "room_busy", retryAfterMs: undefined }));
    hold.open();
    await running;
    expect(await Promise.all(waiting)).toEqual([1, 2]);
    expect(await queue.run(async () => 4)).toBe(4);
  });

  it("holds a place taken by admit: work given later runs in the place's turn, and a cancelled place lets the next run", async () => {
    const queue = new TurnQueue(2);
    const log: string[] = [];
    const first = queue.admit();
    const second = queue.admit();
    expect(() => queue.admit()).toThrow(expect.objectContaining({ code: "room_busy" }));
    const later = second.run(async () => void log.push("second"));
    first.cancel();
    await later;
    const third = queue.run(async () => void log.push("third"));
    await third;
    expect(log).toEqual(["second", "third"]);
  });

  it("tells each place how many are ahead of it, the running one included, and counts a finished place out", async () => {
    const queue = new TurnQueue();
    const hold = gate();
    const running = queue.admit();
    const done = running.run(() => hold.opened);
    const [second, third] = [queue.admit(), queue.admit()];
    expect([running.ahead, second.ahead, third.ahead]).toEqual([0, 1, 2]);
    hold.open();
    await Promise.all([done, second.run(async () => undefined), third.run(async () => undefined)]);
    expect(queue.admit().ahead).toBe(0);
  });
});
