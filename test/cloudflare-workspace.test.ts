import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WORKSPACE_NOT_SAVED } from "@duet/shared";
import { savedWorkspaces, standIn, startCloudflareStack } from "./helpers/cloudflare-stack.ts";
import { startedForTests } from "./helpers/lifecycle.ts";
import type { Stack } from "./helpers/stack.ts";

/**
 * SANDBOX_PROVIDER=cloudflare: a room's workspace outlives its container. The
 * stand-in container (worker/test/sandbox-stand-in/) loses its disk when it
 * sleeps or crashes, as a real one does; the Worker saves the workspace to a
 * local R2 bucket (wrangler's) and restores it before the next command.
 */
const WORKSPACE_MAX = 4 * 1024 * 1024;

/** Waits for `ready` to hold, checking every 20 ms (a barrier on what the sandbox did, not a guess at how long it takes). */
async function until(ready: () => boolean, what: string, deadlineMs = 20_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!ready()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("the cloudflare workspace across sleep, crash and DELETE", () => {
  let stack: Stack;
  let root: string;
  startedForTests(
    () => startCloudflareStack({ SANDBOX_WORKSPACE_MAX_BYTES: String(WORKSPACE_MAX) }),
    (started) => ({ stack, root } = started),
  );

  /** The room's workspace in the executor: what the stand-in container has on its disk. */
  const disk = (room: string) => join(root, "sessions", `sandbox-sandbox-${room}`);

  async function sleep(room: string, how: "sleep" | "crash"): Promise<void> {
    await standIn(stack, how, { room });
    // The container's disk is gone: whatever the next command sees came back from the saved copy.
    expect(existsSync(disk(room))).toBe(false);
  }

  it("a file a turn's command wrote is there for the next command after the container sleeps", async () => {
    const room = "cfw-sleep";
    const res = await stack.client.message(room, { text: "SAY: Writing. <run>mkdir -p notes && echo kept > notes/a.txt</run>" });
    expect(res.runs[0]).toMatchObject({ exitCode: 0 });
    await sleep(room, "sleep");
    expect((await stack.client.exec(room, { cmd: "cat notes/a.txt" })).result).toMatchObject({ exitCode: 0, stdout: "kept\n" });
  });

  it("cd and export survive a crash, which gives no warning", async () => {
    const room = "cfw-shell";
    await stack.client.exec(room, { cmd: "mkdir -p app/src && cd app/src && export STAGE=beta" });
    await sleep(room, "crash");
    expect((await stack.client.exec(room, { cmd: 'pwd; echo "$STAGE"' })).result.stdout).toBe("/workspace/app/src\nbeta\n");
  });

  it("a file uploaded through PUT survives a crash: it lists and reads back the same", async () => {
    const room = "cfw-upload";
    const csv = "a,b\n1,2\n";
    const written = await stack.client.putFile(room, "uploads/data.csv", new TextEncoder().encode(csv), { userId: "U1" });
    expect(written.path).toBe("uploads/data.csv");
    await sleep(room, "crash");
    expect((await stack.client.listFiles(room, "uploads")).entries).toMatchObject([{ path: "uploads/data.csv", bytes: csv.length, kind: "file" }]);
    expect(await new Response((await stack.client.getFile(room, "uploads/data.csv")).body).text()).toBe(csv);
  });

  it("what changed outside any turn is saved when the container goes to sleep", async () => {
    const room = "cfw-late";
    await stack.client.exec(room, { cmd: "echo early > early.txt" });
    // A process left in the background writes after the last turn's save.
    await standIn(stack, "run", { room, cmd: "echo late > /workspace/late.txt" });
    await sleep(room, "sleep");
    expect((await stack.client.exec(room, { cmd: "cat early.txt late.txt" })).result.stdout).toBe("early\nlate\n");
  });

  it("DELETE removes the saved copy: the bucket is empty of it and the next sandbox starts empty", async () => {
    const room = "cfw-gone";
    await stack.client.exec(room, { cmd: "echo old > old.txt" });
    const key = "workspaces/sandbox-cfw-gone.tar.gz";
    expect((await savedWorkspaces(stack)).map((o) => o.key)).toContain(key);
    expect(await stack.client.cleanup(room)).toMatchObject({ cleaned: true, roomId: room });
    expect((await savedWorkspaces(stack)).map((o) => o.key)).not.toContain(key);
    await sleep(room, "crash");
    expect((await stack.client.exec(room, { cmd: "ls" })).result).toMatchObject({ exitCode: 0, stdout: "" });
  });

  it("a workspace over SANDBOX_WORKSPACE_MAX_BYTES is not saved, and the answer says so; the saved copy stays the last good one", async () => {
    const room = "cfw-big";
    await stack.client.exec(room, { cmd: "echo small > small.txt" });
    const res = await stack.client.message(room, { text: "SAY: Filling. <run>head -c 5000000 /dev/urandom > big.bin</run>" });
    expect(res.runs[0]).toMatchObject({ exitCode: 0 });
    expect(res.reply).toContain(WORKSPACE_NOT_SAVED);
    expect(res.reply).toContain(`over the ${WORKSPACE_MAX}-byte limit (SANDBOX_WORKSPACE_MAX_BYTES)`);
    // A direct run says it on its own output.
    const direct = await stack.client.exec(room, { cmd: "ls" });
    expect(direct.result.stderr).toContain(WORKSPACE_NOT_SAVED);
    await sleep(room, "crash");
    expect((await stack.client.exec(room, { cmd: "ls" })).result.stdout).toBe("small.txt\n");
  });

  it("a turn whose commands changed nothing sends the container its commands and nothing more", async () => {
    const room = "cfw-quiet";
    await stack.client.exec(room, { cmd: "echo one > one.txt" });
    const requests = async () => (await (await standIn(stack, "requests", { room })).json()) as string[];
    const before = (await requests()).length;
    const res = await stack.client.message(room, { text: "SAY: Looking. <run>cat one.txt</run> <run>ls</run>" });
    expect(res.runs.map((r) => r.stdout)).toEqual(["one\n", "one.txt\n"]);
    expect((await requests()).slice(before)).toEqual(["POST /api/execute/stream", "POST /api/execute/stream"]);
    // Barrier: a command that changes something is saved (its archive read out of the container), so saving was possible all along.
    await stack.client.exec(room, { cmd: "echo two > two.txt" });
    expect((await requests()).slice(before + 2)).toContain("POST /api/read/stream");
  });

  it("a turn with another queued behind it leaves the save to that one: one save covers both, and both survive a crash", async () => {
    const room = "cfw-queued";
    await stack.client.exec(room, { cmd: "echo base > base.txt" });
    const saves = async () => ((await (await standIn(stack, "requests", { room })).json()) as string[]).filter((r) => r === "POST /api/read/stream").length;
    const before = await saves();
    // The first turn changes the workspace, then waits until the test lets it go.
    const first = stack.client.message(room, { text: "SAY: First. <run>echo a > a.txt; until [ -e go ]; do sleep 0.05; done</run>" });
    await until(() => existsSync(join(disk(room), "a.txt")), "the first turn's command to start");
    // Barrier: a streamed answer's headers come once its turn has its place in the room's queue.
    const second = await fetch(`${stack.workerUrl}/api/rooms/${room}/message`, {
      method: "POST",
      headers: { authorization: `Bearer ${stack.token}`, accept: "text/event-stream", "content-type": "application/json" },
      body: JSON.stringify({ text: "SAY: Second. <run>echo b > b.txt</run>" }),
    });
    expect(second.status).toBe(200);
    writeFileSync(join(disk(room), "go"), "");
    expect((await first).runs[0]).toMatchObject({ exitCode: 0 });
    expect(await second.text()).toContain("event: done");
    expect((await saves()) - before).toBe(1);
    await sleep(room, "crash");
    expect((await stack.client.exec(room, { cmd: "cat a.txt b.txt" })).result.stdout).toBe("a\nb\n");
  });
});
