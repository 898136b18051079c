import { describe, expect, it } from "vitest";
import { startedForTests } from "./helpers/lifecycle.ts";
import { startSandboxStack } from "./helpers/sandbox-stack.ts";
import type { Stack } from "./helpers/stack.ts";

/** 600 nested folders of 10 characters (paths past PATH_MAX), made in one process: 600 mkdir processes take longer than a Worker exec may. */
const DEEP_TREE = `python3 -c 'import os\nfor _ in range(600): os.mkdir("aaaaaaaaaa"); os.chdir("aaaaaaaaaa")\nopen("leaf.txt", "w").write("deep")' && echo made`;

/**
 * A room's disk through the Worker, as a chat user meets it: the real Worker, the
 * real bubblewrap executor with a 16 MiB SANDBOX_WORKSPACE_MAX_BYTES, the fake model.
 * One room filling its disk must leave every other room (and the Worker's own
 * state) working, and reset must work on the full room itself.
 */
describe("a room that fills its disk", () => {
  let stack: Stack;
  startedForTests(
    () => startSandboxStack({ executor: { workspaceMaxBytes: 16 * 1024 * 1024 } }),
    (started) => ({ stack } = started),
  );

  it("gets a clear error, while another room's exec, ask and DELETE keep working, and its own reset works", async () => {
    const full = await stack.client.exec("cli-disk-full", { cmd: "cat /dev/zero > fill" });
    expect(full.result.exitCode).not.toBe(0);
    expect(full.result.stderr).toContain("No space left on device");
    expect(full.result.stderr).toContain("this room's workspace is full (16 MiB, SANDBOX_WORKSPACE_MAX_BYTES)");

    const exec = await stack.client.exec("cli-disk-other", { cmd: "echo fine > note.txt && cat note.txt" });
    expect(exec.result).toMatchObject({ exitCode: 0, stdout: "fine\n" });
    const ask = await stack.client.message("cli-disk-other", { text: "SAY: Checking. <run>cat note.txt</run>", userId: "tester" });
    expect(ask.runs[0]).toMatchObject({ exitCode: 0, stdout: "fine\n" });
    expect(ask.reply).toMatch(/^Checking\./);
    expect(await stack.client.cleanup("cli-disk-other")).toMatchObject({ cleaned: true });

    expect(await stack.client.cleanup("cli-disk-full")).toEqual({ cleaned: true, roomId: "cli-disk-full" });
    const after = await stack.client.exec("cli-disk-full", { cmd: "ls -A | wc -l" });
    expect(after.result).toMatchObject({ exitCode: 0, stdout: "0\n" });
  });

  it("DELETE removes a 600-level deep tree", async () => {
    const made = await stack.client.exec("cli-disk-deep", {
      cmd: DEEP_TREE,
    });
    expect(made.result, JSON.stringify(made.result).slice(0, 600)).toMatchObject({ stdout: "made\n" });
    expect(await stack.client.cleanup("cli-disk-deep")).toEqual({ cleaned: true, roomId: "cli-disk-deep" });
    const after = await stack.client.exec("cli-disk-deep", { cmd: "ls -A | wc -l" });
    expect(after.result.stdout).toBe("0\n");
  });
});
