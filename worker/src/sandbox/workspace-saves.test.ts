import { describe, expect, it } from "vitest";
import { WORKSPACE_NOT_SAVED } from "@duet/shared";
import { WorkspaceSaves } from "./workspace-saves.ts";

/** Saves the test lets finish (or fail) when it chooses; `started(n)` resolves once the n-th has begun. */
function heldSaves() {
  const calls: { written: boolean; finish: (err?: Error) => void }[] = [];
  const waiting: { n: number; resolve: () => void }[] = [];
  const saves = new WorkspaceSaves(
    (written) =>
      new Promise<void>((resolve, reject) => {
        calls.push({ written, finish: (err) => (err ? reject(err) : resolve()) });
        for (const w of waiting.filter((w) => w.n <= calls.length)) w.resolve();
      }),
  );
  const started = (n: number) => (calls.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ n, resolve })));
  return { saves, calls, started };
}

describe("WorkspaceSaves", () => {
  it("saves nothing when nothing was marked changed", async () => {
    const { saves, calls } = heldSaves();
    expect(await saves.flush()).toBeNull();
    expect(calls).toHaveLength(0);
  });

  it("flushes that arrive while a save runs share one more save, after it, and its outcome", async () => {
    const { saves, calls, started } = heldSaves();
    saves.markChanged();
    const first = saves.flush();
    saves.markChanged();
    const second = saves.flush();
    saves.markChanged(true);
    const third = saves.flush();
    expect(calls).toHaveLength(1);
    calls[0].finish();
    expect(await first).toBeNull();
    // The second save starts only once the first is done, and carries the write it was told of.
    await started(2);
    expect(calls[1].written).toBe(true);
    calls[1].finish(new Error("the bucket is down"));
    // Both callers whose changes that save covered hear that it failed.
    expect(await second).toBe(`${WORKSPACE_NOT_SAVED} the bucket is down`);
    expect(await third).toBe(`${WORKSPACE_NOT_SAVED} the bucket is down`);
    expect(calls).toHaveLength(2);
  });

  it("a failed save is said, stays marked, and the next flush tries again", async () => {
    const { saves, calls } = heldSaves();
    saves.markChanged(true);
    const failed = saves.flush();
    calls[0].finish(new Error("the bucket is down"));
    expect(await failed).toBe(`${WORKSPACE_NOT_SAVED} the bucket is down`);
    const retried = saves.flush();
    expect(calls).toHaveLength(2);
    expect(calls[1].written).toBe(true);
    calls[1].finish();
    expect(await retried).toBeNull();
  });

  it("forget drops what was marked and waits for the save under way", async () => {
    const { saves, calls } = heldSaves();
    saves.markChanged();
    void saves.flush();
    let forgotten = false;
    const forgetting = saves.forget().then(() => (forgotten = true));
    await Promise.resolve();
    expect(forgotten).toBe(false);
    calls[0].finish();
    await forgetting;
    expect(await saves.flush()).toBeNull();
    expect(calls).toHaveLength(1);
  });
});
