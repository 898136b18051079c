import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTestExecutor, waitForFile, type TestExecutor } from "./test-support.ts";

// Commands that outlive their welcome: queued behind the concurrency cap, abandoned
// by their caller, or running when their room is deleted.

let ex: TestExecutor;
beforeAll(async () => {
  // One at a time, so a stuck command would visibly block the next.
  ex = await startTestExecutor({ maxConcurrent: 1 });
});
afterAll(async () => {
  await ex?.stop();
});

const sessionDir = (id: string) => join(ex.root, "sessions", id);

describe("one command at a time (SANDBOX_MAX_CONCURRENT=1)", () => {
  test("a second command waits for the running one", async () => {
    const done: string[] = [];
    const first = ex.exec("sandbox-q1", "touch started; sleep 600", 1500).then((r) => (done.push("first"), r));
    await waitForFile(sessionDir("sandbox-q1"), "started");
    const second = ex.exec("sandbox-q2", "echo second").then((r) => (done.push("second"), r));
    expect((await second).stdout).toBe("second\n");
    expect((await first).timedOut).toBe(true);
    expect(done).toEqual(["first", "second"]);
  });

  test("a caller hanging up kills its command and frees the slot", async () => {
    const abandoned = ex.abandonable("sandbox-hangup", "touch started; sleep 600", 600_000);
    await waitForFile(sessionDir("sandbox-hangup"), "started");
    abandoned.hangUp();
    expect(await abandoned.ended).toBe("AbortError");
    // Would wait ten minutes (and fail the test) if the sleep still held the only slot.
    expect((await ex.exec("sandbox-after-hangup", "echo free")).stdout).toBe("free\n");
  });
});

describe("deleting a room while its command runs", () => {
  test("stops the command, then removes the files", async () => {
    const running = ex.exec("sandbox-busy-room", "echo data > kept.txt; touch started; sleep 600", 600_000);
    await waitForFile(sessionDir("sandbox-busy-room"), "started");
    expect(await ex.request("DELETE", "/api/sessions/sandbox-busy-room")).toEqual({ status: 200, body: { success: true } });
    const r = await running;
    expect(r).toMatchObject({ exitCode: 137, success: false, timedOut: false });
    expect(r.stderr).toContain("command was killed");
    expect((await ex.exec("sandbox-busy-room", "ls -A | wc -l")).stdout).toBe("0\n");
  });
});
