import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { startTestExecutor, type TestExecutor } from "./test-support.ts";

// A room's disk: its own filesystem of SANDBOX_WORKSPACE_MAX_BYTES (this host: root,
// loop devices), so filling it stops that room only; and a reset removes whatever
// tree a command made.

const QUOTA = 16 * 1024 * 1024;
let ex: TestExecutor;
let plain: TestExecutor;

beforeAll(async () => {
  ex = await startTestExecutor({ workspaceMaxBytes: QUOTA });
  plain = await startTestExecutor({ isolation: "none" });
});
afterAll(async () => {
  await ex?.stop();
  await plain?.stop();
});

/** 600 nested folders of 10 characters (paths past PATH_MAX), made in one process: 600 mkdir processes take longer than a Worker exec may. */
const DEEP_TREE = `python3 -c 'import os\nfor _ in range(600): os.mkdir("aaaaaaaaaa"); os.chdir("aaaaaaaaaa")\nopen("leaf.txt", "w").write("deep")' && echo made`;

describe("the room's disk quota", () => {
  test("a room that fills its quota gets a clear error; another room keeps working; reset frees it", async () => {
    const full = await ex.exec("sandbox-disk-full", "cat /dev/zero > fill; echo exit=$?", 60_000);
    expect(full.stdout).toBe("exit=1\n");
    expect(full.stderr).toContain("No space left on device");
    expect(full.stderr).toContain("[sandbox] this room's workspace is full (16 MiB, SANDBOX_WORKSPACE_MAX_BYTES): delete files to make room");
    // On the host it took what the room wrote and no more.
    const image = join(ex.root, "disks", "sandbox-disk-full.ext4");
    expect(statSync(image).blocks * 512).toBeLessThanOrEqual(QUOTA);

    const other = await ex.exec("sandbox-disk-other", "head -c 1048576 /dev/zero > one-mib && ls -l one-mib | cut -d' ' -f5");
    expect(other).toMatchObject({ exitCode: 0, stdout: "1048576\n", stderr: "" });

    expect(await ex.request("DELETE", "/api/sessions/sandbox-disk-full")).toEqual({ status: 200, body: { success: true } });
    expect(existsSync(image)).toBe(false);
    const after = await ex.exec("sandbox-disk-full", "ls -A | wc -l; head -c 1048576 /dev/zero > again && echo wrote");
    expect(after).toMatchObject({ exitCode: 0, stdout: "0\nwrote\n" });
  });

  test("two DELETEs of a room at once both succeed and leave neither disk nor files", async () => {
    expect((await ex.exec("sandbox-disk-twice", "head -c 1048576 /dev/zero > one-mib && echo wrote")).stdout).toBe("wrote\n");
    const image = join(ex.root, "disks", "sandbox-disk-twice.ext4");
    expect(existsSync(image)).toBe(true);
    const both = await Promise.all([ex.request("DELETE", "/api/sessions/sandbox-disk-twice"), ex.request("DELETE", "/api/sessions/sandbox-disk-twice")]);
    expect(both).toEqual([{ status: 200, body: { success: true } }, { status: 200, body: { success: true } }]);
    expect(existsSync(image)).toBe(false);
    expect((await ex.exec("sandbox-disk-twice", "ls -A | wc -l")).stdout).toBe("0\n");
  });

  test("a caller that hangs up while its room's disk is being made: the command never runs", async () => {
    const partial = join(ex.root, "disks", "sandbox-disk-hangup.ext4.new");
    const abandoned = ex.abandonable("sandbox-disk-hangup", "sleep 1; touch ran", 30_000);
    // The image exists half-made while mkfs and mount run (child processes): hang up inside that stretch.
    await vi.waitFor(() => expect(existsSync(partial)).toBe(true), { timeout: 10_000, interval: 2 });
    abandoned.hangUp();
    expect(await abandoned.ended).toBe("AbortError");
    // The room runs one command at a time, so this one starts only once the abandoned one is over.
    expect((await ex.exec("sandbox-disk-hangup", "ls -A")).stdout).toBe("");
  });

  test("the workspace shows the room's quota as its size", async () => {
    const r = await ex.exec("sandbox-disk-df", "df -B1 --output=size /workspace | tail -1");
    expect(Number(r.stdout.trim())).toBeLessThanOrEqual(QUOTA);
    expect(Number(r.stdout.trim())).toBeGreaterThan(QUOTA * 0.8);
  });
});

describe("reset removes any tree a command can make", () => {
  test.each([
    ["under bubblewrap (the room's filesystem goes whole)", () => ex],
    ["without isolation (the folder is walked by rm -rf)", () => plain],
  ])("a 600-level deep directory: %s", async (_, which) => {
    const x = which();
    expect((await x.exec("sandbox-deep", DEEP_TREE, 60_000)).stdout).toBe("made\n");
    expect(await x.request("DELETE", "/api/sessions/sandbox-deep")).toEqual({ status: 200, body: { success: true } });
    expect((await x.exec("sandbox-deep", "ls -A | wc -l")).stdout).toBe("0\n");
  });
});
