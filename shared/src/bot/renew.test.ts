import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { keepRenewing } from "./renew.ts";

/** On a fake clock: "nothing more happened" is the clock run well past more renewals, not a wait. */
describe("keepRenewing", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("shows at once, renews, and after stop() nothing more lands, the call in flight included", async () => {
    const shown: number[] = [];
    let release!: () => void;
    let n = 0;
    const stop = keepRenewing(async () => {
      const i = n++;
      // The third call hangs until released: stop() must wait for it.
      if (i === 2) await new Promise<void>((r) => (release = r));
      shown.push(i);
    }, 20);
    await vi.advanceTimersByTimeAsync(0);
    expect(n).toBe(1);
    await vi.advanceTimersByTimeAsync(40);
    expect(n).toBe(3);
    let stopped = false;
    const stopping = stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(200);
    expect(stopped).toBe(false);
    expect(n).toBe(3);
    release();
    await stopping;
    expect(shown).toEqual([0, 1, 2]);
    await vi.advanceTimersByTimeAsync(200);
    expect(n).toBe(3);
    expect(shown).toEqual([0, 1, 2]);
  });

  it("keeps renewing after a call fails", async () => {
    let calls = 0;
    const stop = keepRenewing(async () => {
      calls++;
      throw new Error("refused");
    }, 10);
    await vi.advanceTimersByTimeAsync(10);
    expect(calls).toBe(2);
    await stop();
  });
});
