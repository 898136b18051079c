import { describe, expect, it } from "vitest";
import { keepRenewing } from "./renew.ts";

describe("keepRenewing", () => {
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
    await expect.poll(() => n, { timeout: 5_000, interval: 5 }).toBeGreaterThanOrEqual(3);
    let stopped = false;
    const stopping = stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(stopped).toBe(false);
    release();
    await stopping;
    const atStop = shown.length;
    expect(shown.slice(0, 3)).toEqual([0, 1, 2]);
    await new Promise((r) => setTimeout(r, 60));
    expect(shown).toHaveLength(atStop);
  });

  it("keeps renewing after a call fails", async () => {
    let calls = 0;
    const stop = keepRenewing(async () => {
      calls++;
      throw new Error("refused");
    }, 10);
    await expect.poll(() => calls, { timeout: 5_000, interval: 5 }).toBeGreaterThanOrEqual(2);
    await stop();
  });
});
