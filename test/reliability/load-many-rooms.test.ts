import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WorkerClient } from "@duet/shared";
import { type Rig, startRig } from "./rig.ts";
import { turn } from "./tally.ts";

/**
 * 200 rooms at once, straight at the Worker API, each turn running a command in
 * its own real sandbox: every room gets its own answer and keeps one whole turn,
 * and no room sees another's files.
 *
 * In a file of its own, on a Worker that has served nothing yet: after an
 * earlier burst, wrangler's dev proxy sometimes answers a POST with 503 "Your
 * worker restarted mid-request" (a connection it reused was reset), which is
 * the local dev server's, not Duet's.
 */

let rig: Rig;
let client: WorkerClient;

beforeAll(async () => {
  // What this test holds is isolation, not speed, so its deadlines are generous: with 200 rooms
  // starting at once on 2 busy cores, a turn's model call and its first command (queued at one
  // executor, each also making its room's disk) can each wait well past the product's defaults.
  rig = await startRig({ MODEL_TIMEOUT_MS: "120000", COMMAND_TIMEOUT_MS: "120000" });
  client = new WorkerClient({ baseUrl: rig.stack.workerUrl, token: rig.stack.token, timeoutMs: 240_000 });
});

afterAll(async () => {
  await rig?.stop();
});

describe("load on many rooms", () => {
  it("200 rooms at once, each running a command in its own sandbox: every room holds its own one turn", async () => {
    const rooms = Array.from({ length: 200 }, (_, i) => `load-${i}-${Date.now().toString(36)}`);
    const answers = await Promise.all(
      rooms.map(async (room) => {
        const t = turn("one of 200 rooms at once");
        const res = await client.message(room, { text: `SAY: in ${room} <run>echo ${room} > id.txt; cat id.txt</run>`, idempotencyKey: `k-${room}` });
        return { room, res, t };
      }),
    );
    for (const { room, res, t } of answers) {
      // `error` in the comparison, so a failure says what happened to the command.
      expect(res.runs.map((r) => ({ exitCode: r.exitCode, stdout: r.stdout, error: r.error }))).toEqual([{ exitCode: 0, stdout: `${room}\n`, error: undefined }]);
      const { messages } = await client.history(room);
      t.answered(messages.filter((x) => x.role === "agent"));
      expect(messages.map((x) => x.role)).toEqual(["user", "agent"]);
      expect(messages[1].text).toBe(`in ${room}\n\nOutput (echo ${room} > id.txt; cat id.txt):\n${room}`);
      expect(rig.workspaceFile(room, "id.txt")).toBe(`${room}\n`);
    }
  }, 300_000);
});
