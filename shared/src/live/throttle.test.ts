import { describe, expect, it } from "vitest";
import { ManualTimers } from "./manual-timers.ts";
import { ChannelPace } from "./channel-pace.ts";
import { LatestThrottle } from "./throttle.ts";

/** A platform call taking `latencyMs` of the manual clock; records when each started and ended. */
function platform(timers: ManualTimers, latencyMs = 0) {
  const calls: { state: string; start: number; end: number }[] = [];
  let failNext: unknown[] = [];
  const deliver = (state: string) =>
    new Promise<void>((resolve, reject) => {
      const start = timers.now();
      const err = failNext.shift();
      const done = () => {
        calls.push({ state, start, end: timers.now() });
        if (err !== undefined) reject(err);
        else resolve();
      };
      if (latencyMs === 0) done();
      else timers.setTimeout(done, latencyMs);
    });
  return { calls, deliver, failWith: (...errs: unknown[]) => (failNext = errs) };
}

class RateLimited extends Error {
  constructor(readonly retryAfterMs: number) {
    super("429");
  }
}
const retryAfterMs = (err: unknown) => (err instanceof RateLimited ? err.retryAfterMs : undefined);

describe("LatestThrottle", () => {
  it("with afterFirstMs 0, shows the second state as soon as the first call ended, then keeps to the interval", async () => {
    const timers = new ManualTimers();
    const p = platform(timers, 100);
    const t = new LatestThrottle(p.deliver, { intervalMs: 1000, afterFirstMs: 0, timers });
    t.push("a");
    await timers.advance(50);
    t.push("b");
    await timers.advance(50);
    // "a" ended at 100 and "b" went at once, not a second later.
    expect(p.calls.map((c) => [c.state, c.end])).toEqual([["a", 100]]);
    await timers.advance(100);
    expect(p.calls.map((c) => [c.state, c.start])).toEqual([["a", 0], ["b", 100]]);
    t.push("c");
    await timers.advance(900);
    expect(p.calls).toHaveLength(2);
    await timers.advance(200);
    expect(p.calls.map((c) => [c.state, c.start])).toEqual([["a", 0], ["b", 100], ["c", 1200]]);
  });

  it("counts the quick second call from the first call that succeeded: a refused first waits the interval", async () => {
    const timers = new ManualTimers();
    const p = platform(timers);
    const errors: unknown[] = [];
    const t = new LatestThrottle(p.deliver, { intervalMs: 1000, afterFirstMs: 0, timers, onError: (e) => errors.push(e) });
    p.failWith(new Error("refused"));
    t.push("a");
    await timers.advance(0);
    t.push("b");
    await timers.advance(999);
    expect(p.calls.map((c) => c.state)).toEqual(["a"]);
    await timers.advance(1);
    t.push("c");
    await timers.advance(0);
    expect(p.calls.map((c) => [c.state, c.start])).toEqual([["a", 0], ["b", 1000], ["c", 1000]]);
    expect(errors).toHaveLength(1);
  });

  it("shows the first state at once, then at most one a second, always the latest, and the final one last", async () => {
    const timers = new ManualTimers();
    const p = platform(timers);
    const t = new LatestThrottle(p.deliver, { intervalMs: 1000, timers });
    t.push("a");
    await timers.advance(0);
    expect(p.calls.map((c) => c.state)).toEqual(["a"]);
    for (const s of ["b", "c", "d"]) {
      t.push(s);
      await timers.advance(300);
    }
    await timers.advance(100);
    // b and c were overtaken by d before the second was up.
    expect(p.calls.map((c) => c.state)).toEqual(["a", "d"]);
    t.push("e");
    await timers.advance(200);
    const done = t.finish("final");
    await timers.advance(5000);
    expect(await done).toBe(true);
    // e was overtaken by the final state, which did not wait out the second after d.
    expect(p.calls.map((c) => [c.state, c.start])).toEqual([
      ["a", 0],
      ["d", 1000],
      ["final", 1200],
    ]);
  });

  it("sends the final state once the call in flight has ended, without waiting out the interval", async () => {
    const timers = new ManualTimers();
    const p = platform(timers, 100);
    const t = new LatestThrottle(p.deliver, { intervalMs: 1000, timers });
    t.push("a");
    await timers.advance(50);
    // a is still in flight: the final state waits for it, then goes at once.
    const done = t.finish("final");
    await timers.advance(1000);
    expect(await done).toBe(true);
    expect(p.calls.map((c) => [c.state, c.start])).toEqual([
      ["a", 0],
      ["final", 100],
    ]);
  });

  it("counts the interval from the end of a slow call", async () => {
    const timers = new ManualTimers();
    const p = platform(timers, 400);
    const t = new LatestThrottle(p.deliver, { intervalMs: 1000, timers });
    t.push("a");
    t.push("b");
    await timers.advance(3000);
    expect(p.calls.map((c) => [c.state, c.start])).toEqual([
      ["a", 0],
      ["b", 1400],
    ]);
  });

  it("waits out a 429's Retry-After and then shows the latest state, losing nothing", async () => {
    const timers = new ManualTimers();
    const p = platform(timers);
    const t = new LatestThrottle(p.deliver, { intervalMs: 1000, timers, retryAfterMs });
    t.push("a");
    await timers.advance(0);
    p.failWith(new RateLimited(3000));
    t.push("b");
    await timers.advance(1000);
    expect(p.calls.map((c) => c.state)).toEqual(["a", "b"]);
    // The refused state is tried again after Retry-After, not before.
    await timers.advance(2999);
    expect(p.calls).toHaveLength(2);
    await timers.advance(1);
    expect(p.calls.map((c) => [c.state, c.start])).toEqual([
      ["a", 0],
      ["b", 1000],
      ["b", 4000],
    ]);
    p.failWith(new RateLimited(500));
    const done = t.finish("final");
    await timers.advance(10_000);
    expect(await done).toBe(true);
    // The final state did not wait out the interval after b, but it did wait out its own Retry-After.
    expect(p.calls.slice(-2).map((c) => [c.state, c.start])).toEqual([
      ["final", 4000],
      ["final", 4500],
    ]);
  });

  it("sends the final state no sooner than a pending Retry-After", async () => {
    const timers = new ManualTimers();
    const p = platform(timers);
    const t = new LatestThrottle(p.deliver, { intervalMs: 1000, timers, retryAfterMs });
    p.failWith(new RateLimited(3000));
    t.push("a");
    await timers.advance(500);
    const done = t.finish("final");
    await timers.advance(5000);
    expect(await done).toBe(true);
    expect(p.calls.map((c) => [c.state, c.start])).toEqual([
      ["a", 0],
      ["final", 3000],
    ]);
  });

  it("reports a failure waiting cannot fix, goes on with the next state, and tells finish when the final one failed", async () => {
    const timers = new ManualTimers();
    const p = platform(timers);
    const errors: unknown[] = [];
    const t = new LatestThrottle(p.deliver, { intervalMs: 1000, timers, retryAfterMs, onError: (e) => errors.push(e) });
    p.failWith(new Error("message_not_found"));
    t.push("a");
    await timers.advance(0);
    t.push("b");
    await timers.advance(1000);
    expect(p.calls.map((c) => c.state)).toEqual(["a", "b"]);
    expect(errors).toHaveLength(1);
    p.failWith(new Error("cant_update_message"));
    const done = t.finish("final");
    await timers.advance(1000);
    expect(await done).toBe(false);
    expect(errors).toHaveLength(2);
  });

  it("gives up on a state that keeps being rate limited after maxAttempts", async () => {
    const timers = new ManualTimers();
    const p = platform(timers);
    const errors: unknown[] = [];
    const t = new LatestThrottle(p.deliver, { intervalMs: 100, timers, retryAfterMs, maxAttempts: 3, onError: (e) => errors.push(e) });
    p.failWith(new RateLimited(100), new RateLimited(100), new RateLimited(100));
    const done = t.finish("final");
    await timers.advance(10_000);
    expect(await done).toBe(false);
    expect(p.calls).toHaveLength(3);
    expect(errors).toHaveLength(1);
  });

  it("shows nothing more after close", async () => {
    const timers = new ManualTimers();
    const p = platform(timers);
    const t = new LatestThrottle(p.deliver, { intervalMs: 1000, timers });
    t.push("a");
    t.push("b");
    t.close();
    await timers.advance(5000);
    expect(p.calls.map((c) => c.state)).toEqual(["a"]);
  });

  it("shows the newest state when a call that waited its turn goes, and a final one that came meanwhile as the only call", async () => {
    const timers = new ManualTimers();
    const p = platform(timers);
    const pace = new ChannelPace({ intervalMs: 1000, timers });
    // Another message holds the channel for a second first.
    void pace.run("C1", () => new Promise<void>((r) => timers.setTimeout(r, 1000)));
    const waited = new LatestThrottle<string>((s, newest) => pace.run("C1", () => p.deliver(newest())), { intervalMs: 1000, timers });
    waited.push("a");
    await timers.advance(500);
    waited.push("b");
    const done = waited.finish("final");
    await timers.advance(5000);
    expect(await done).toBe(true);
    expect(p.calls.map((c) => [c.state, c.start])).toEqual([["final", 2000]]);
  });
});
