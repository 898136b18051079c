import { describe, expect, it } from "vitest";
import { WorkerPaceSlots } from "./pace-slots.ts";
import type { PaceSlotRequest } from "./pace.ts";

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
  };
  return { asked, state, worker };
}

describe("WorkerPaceSlots", () => {
  it("asks in the key's workspace, or a share of the platform by channel id, always as the same process", async () => {
    const { asked, worker } = fakeWorker();
    const slots = new WorkerPaceSlots(worker, "slack", () => {});
    expect(await slots.wait("T123/C9", 1_000)).toBe(250);
    await slots.wait("/C9", 1_000);
    const discord = new WorkerPaceSlots(worker, "discord", () => {});
    await discord.wait("1234567890123", 1_000);
    await discord.wait("1234567890123", 1_000);
    expect(asked[0]).toEqual({ scope: "slack-T123", body: { channel: "C9", intervalMs: 1_000, holder: expect.any(String) } });
    expect(asked[1].scope).toMatch(/^slack-\d+$/);
    expect(asked[2].scope).toMatch(/^discord-\d+$/);
    // One channel is always in one scope, and one process is one holder.
    expect(asked[3].scope).toBe(asked[2].scope);
    expect(asked[1].body.holder).toBe(asked[0].body.holder);
    expect(asked[2].body.holder).not.toBe(asked[0].body.holder);
  });

  it("says once that the Worker's pace is down, and once that it is back", async () => {
    const { state, worker } = fakeWorker();
    const lines: string[] = [];
    const slots = new WorkerPaceSlots(worker, "slack", (l) => lines.push(l));
    state.down = true;
    for (let i = 0; i < 3; i++) await expect(slots.wait("T1/C1", 1_000)).rejects.toThrow("cannot reach the Worker");
    state.down = false;
    await slots.wait("T1/C1", 1_000);
    await slots.wait("T1/C1", 1_000);
    expect(lines).toEqual([expect.stringContaining("this process's pace alone"), expect.stringContaining("answers again")]);
  });
});
