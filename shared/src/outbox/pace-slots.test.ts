import { describe, expect, it } from "vitest";
import { WorkerPaceSlots } from "./pace-slots.ts";
import type { PaceSlotRequest } from "../wire/pace.ts";

/** A Worker whose pace answers `waitMs`, or fails while `down`; records each ask. */
function fakeWorker() {
  const asked: { scope: string; body: PaceSlotRequest }[] = [];
  const state = { down: false };
  const worker = {
    paceSlot: async (scope: string, body: PaceSlotRequest) => {
      asked.push({ scope, body });
      if (state.down) throw new Error("cannot reach the Worker");
      return { waitMs: 250 };
    },
    paceEnded: async () => ({ ended: true }),
  };
  return { asked, state, worker };
}

describe("WorkerPaceSlots", () => {
  it("asks in the key's workspace (one scope for a single token's, whose keys name none), always as the same process", async () => {
    const { asked, worker } = fakeWorker();
    const slots = new WorkerPaceSlots(worker, () => {});
    expect(await slots.wait("T123/C9", 1_000)).toBe(250);
    await slots.wait("/C9", 1_000);
    await slots.wait("/C7", 1_000);
    await new WorkerPaceSlots(worker, () => {}).wait("T123/C9", 1_000);
    expect(asked[0]).toEqual({ scope: "slack-T123", body: { channel: "C9", intervalMs: 1_000, holder: expect.any(String) } });
    expect(asked.slice(1, 3).map((a) => a.scope)).toEqual(["slack-bot-token", "slack-bot-token"]);
    // One process is one holder; another process is another.
    expect(asked[1].body.holder).toBe(asked[0].body.holder);
    expect(asked[3].body.holder).not.toBe(asked[0].body.holder);
  });

  it("says once that the Worker's pace is down, and once that it is back", async () => {
    const { state, worker } = fakeWorker();
    const lines: string[] = [];
    const slots = new WorkerPaceSlots(worker, (l) => lines.push(l));
    state.down = true;
    for (let i = 0; i < 3; i++) await expect(slots.wait("T1/C1", 1_000)).rejects.toThrow("cannot reach the Worker");
    state.down = false;
    await slots.wait("T1/C1", 1_000);
    await slots.wait("T1/C1", 1_000);
    expect(lines).toEqual([expect.stringContaining("this process's pace alone"), expect.stringContaining("answers again")]);
  });
});
