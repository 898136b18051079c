import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WorkerClient } from "@duet/shared";
import { type Rig, startRig } from "./rig.ts";
import { turn } from "./tally.ts";

/**
 * A sandbox host whose line is full answers 503 with Retry-After. The Worker
 * waits that long and asks again, so a crowd of rooms arriving at once each
 * still gets its command run, instead of some of them getting "busy" as their
 * output.
 *
 * The executor here runs one command at a time and lets one more wait, so a
 * handful of rooms at once (each also warming its sandbox while the model
 * thinks) overflows it for certain.
 */

let rig: Rig;
let client: WorkerClient;

beforeAll(async () => {
  rig = await startRig({}, { maxConcurrent: 1, maxWaiting: 1 });
  client = new WorkerClient({ baseUrl: rig.stack.workerUrl, token: rig.stack.token, timeoutMs: 120_000 });
});

afterAll(async () => {
  await rig?.stop();
});

describe("a busy sandbox host", () => {
  it("rooms arriving at once while the executor's line is full each get their command run", async () => {
    const rooms = Array.from({ length: 6 }, (_, i) => `busy-${i}-${Date.now().toString(36)}`);
    const answers = await Promise.all(
      rooms.map(async (room) => {
        const t = turn("one of 6 rooms at a full executor");
        const res = await client.message(room, { text: `SAY: in ${room} <run>sleep 0.2; echo ${room}</run>`, idempotencyKey: `k-${room}` });
        return { room, res, t };
      }),
    );
    // The line really overflowed: without that, this test would prove nothing.
    expect(rig.busyAnswers()).toBeGreaterThan(0);
    for (const { room, res, t } of answers) {
      expect(res.runs.map((r) => ({ exitCode: r.exitCode, stdout: r.stdout, error: r.error }))).toEqual([{ exitCode: 0, stdout: `${room}\n`, error: undefined }]);
      const { messages } = await client.history(room);
      t.answered(messages.filter((x) => x.role === "agent"));
      expect(messages[1].text).toBe(`in ${room}\n\nOutput (sleep 0.2; echo ${room}):\n${room}`);
    }
  });
});
