import { closeSync, constants, existsSync, openSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as wait } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { MessageResponse } from "@duet/shared";
import { startedForTests } from "./helpers/lifecycle.ts";
import { startCloudflareStack } from "./helpers/cloudflare-stack.ts";
import type { Stack } from "./helpers/stack.ts";

/**
 * SANDBOX_PROVIDER=cloudflare: the Worker's CloudflareExecutor drives the real
 * @cloudflare/sandbox SDK (getSandbox, the Sandbox Durable Object, its sessions
 * and exec), whose container requests reach the bubblewrap executor instead of a
 * container (see worker/test/sandbox-stand-in/).
 */
describe("the cloudflare sandbox provider through the @cloudflare/sandbox SDK", () => {
  let stack: Stack;
  let root: string;
  startedForTests(
    () => startCloudflareStack({ COMMAND_TIMEOUT_MS: "3000" }),
    (started) => ({ stack, root } = started),
  );

  it("runs the model's commands in the room's sandbox and replies with their output", async () => {
    const res = await stack.client.message("cf-sdk-demo", { text: "SAY: Looking. <run>echo from-sdk | tee note.txt</run> <run>ls /nope</run>" });
    expect(res.runs).toMatchObject([
      { cmd: "echo from-sdk | tee note.txt", exitCode: 0, stdout: "from-sdk\n", stderr: "" },
      { cmd: "ls /nope", exitCode: 2, stdout: "", stderr: expect.stringContaining("No such file or directory") },
    ]);
    expect(res.reply).toContain("Output (echo from-sdk | tee note.txt):\nfrom-sdk");
    const again = await stack.client.exec("cf-sdk-demo", { cmd: "cat note.txt" });
    expect(again.result).toMatchObject({ exitCode: 0, stdout: "from-sdk\n", success: true });
  });

  it("gives rooms whose names are no DNS label (a Discord thread, upper case) their own sandbox", async () => {
    const thread = "discord-123456789012345678-123456789012345678-223456789012345678";
    const upper = "slack-T0ABCDEF1-C0ABCDEF1";
    await stack.client.exec(thread, { cmd: "echo thread > who.txt" });
    await stack.client.exec(upper, { cmd: "echo upper > who.txt" });
    expect((await stack.client.exec(thread, { cmd: "cat who.txt" })).result.stdout).toBe("thread\n");
    expect((await stack.client.exec(upper, { cmd: "cat who.txt" })).result.stdout).toBe("upper\n");
    expect((await stack.client.exec(upper.toLowerCase(), { cmd: "cat who.txt" })).result.exitCode).toBe(1);
  });

  it("keeps each room's files to itself", async () => {
    await stack.client.exec("cf-sdk-a", { cmd: "echo mine > a.txt" });
    const other = await stack.client.exec("cf-sdk-b", { cmd: "cat a.txt" });
    expect(other.result.exitCode).toBe(1);
    expect(other.result.stderr).toContain("No such file");
  });

  it("stops a command past COMMAND_TIMEOUT_MS and says so", async () => {
    const res = await stack.client.message("cf-sdk-slow", { text: "SAY: waiting <run>sleep 20; echo never</run> <run>echo next</run>" });
    expect(res.runs[0]).toMatchObject({ exitCode: 124, stdout: "", stderr: expect.stringContaining("timed out after 3000 ms") });
    expect(res.reply).toContain("timed out after 3000 ms");
    expect(res.runs[1]).toMatchObject({ exitCode: 0, stdout: "next\n" });
    // Killed in the container, not only given up on.
    expect(await standIn("processes", "cf-sdk-slow")).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ command: expect.stringContaining("sleep 20; echo never"), status: "killed" }),
        expect.objectContaining({ command: expect.stringContaining("echo next"), status: "completed" }),
      ]),
    );
  });

  it("caps a flood of output and marks it truncated", async () => {
    const res = await stack.client.exec("cf-sdk-flood", { cmd: "head -c 3000000 /dev/zero | tr '\\0' x" });
    expect(res.result).toMatchObject({ exitCode: 0, truncated: true });
    expect(res.result.stdout).toBe("x".repeat(64 * 1024));
  });

  it("a stop kills the command in the container: what it would have done next never happens", async () => {
    const room = "cf-sdk-stop";
    const gate = await waitingAtGate(room);
    expect(await stack.client.stop(room, "U2")).toEqual({ stopped: true });
    await expectKilled(room, gate);
  });

  it("a stop that comes before the container has answered with the process still kills it", async () => {
    const room = "cf-sdk-stop-early";
    const gate = await waitingAtGate(room, () => standIn("hold", room));
    // The command runs, but the SDK is still waiting for the container's answer to its stream request.
    expect(await standIn("requests", room)).toContain("POST /api/execute/stream");
    expect(await stack.client.stop(room, "U2")).toEqual({ stopped: true });
    await standIn("release", room);
    await expectKilled(room, gate);
  });

  it("sends the container one request per command", async () => {
    const room = "cf-sdk-count";
    await stack.client.exec(room, { cmd: "true" });
    const before = (await standIn("requests", room)).length;
    await stack.client.exec(room, { cmd: "echo a" });
    await stack.client.exec(room, { cmd: "ls /nope" });
    expect((await standIn("requests", room)).slice(before)).toEqual(["POST /api/execute/stream", "POST /api/execute/stream"]);
  });

  it("cd and export carry from one command to the next in the container", async () => {
    await stack.client.exec("cf-sdk-shell", { cmd: "mkdir -p app/src && cd app/src && export STAGE=beta" });
    expect((await stack.client.exec("cf-sdk-shell", { cmd: 'pwd; echo "$STAGE"' })).result.stdout).toBe("/workspace/app/src\nbeta\n");
  });

  it("DELETE destroys the room's sandbox: its files are gone", async () => {
    await stack.client.exec("cf-sdk-gone", { cmd: "echo old > old.txt" });
    const workspace = join(root, "sessions", "sandbox-sandbox-cf-sdk-gone");
    expect(existsSync(workspace)).toBe(true);
    expect(await stack.client.cleanup("cf-sdk-gone")).toMatchObject({ cleaned: true, roomId: "cf-sdk-gone" });
    expect(existsSync(workspace)).toBe(false);
    const after = await stack.client.exec("cf-sdk-gone", { cmd: "ls" });
    expect(after.result).toMatchObject({ exitCode: 0, stdout: "" });
  });

  /** What the room's stand-in container recorded, or a hold on its answers (see worker/test/sandbox-stand-in/entry.ts). */
  async function standIn(what: "processes" | "requests" | "hold" | "release", room: string): Promise<unknown[]> {
    const res = await fetch(`${stack.workerUrl}/_stand-in/${what}?room=${room}`);
    expect(res.ok).toBe(true);
    return res.status === 204 ? [] : ((await res.json()) as unknown[]);
  }

  interface Gate {
    workspace: string;
    /** The write end the test holds, so the command's read waits until the test writes or lets go. */
    held: number;
    answer: Promise<MessageResponse>;
  }

  /** A turn whose command wrote its first marker and waits on a FIFO the test holds; `beforeTurn` runs once the FIFO is made. */
  async function waitingAtGate(room: string, beforeTurn?: () => Promise<unknown>): Promise<Gate> {
    const workspace = join(root, "sessions", `sandbox-sandbox-${room}`);
    expect((await stack.client.exec(room, { cmd: "mkfifo -m 666 gate" })).result.exitCode).toBe(0);
    await beforeTurn?.();
    const answer = stack.client.message(room, { text: "SAY: Waiting. <run>echo one > first; read line < gate; echo two > second</run> <run>echo next > next</run>" });
    let held: number | null = null;
    while (held === null) held = openedForWriting(join(workspace, "gate")) ?? (await wait(20), null);
    // Something reads the gate: the command, past its first marker.
    expect(existsSync(join(workspace, "first"))).toBe(true);
    return { workspace, held, answer };
  }

  async function expectKilled(room: string, { workspace, held, answer }: Gate): Promise<void> {
    const res = await answer;
    expect(res).toMatchObject({ stopped: true, runs: [{ exitCode: null, error: "stopped by U2" }] });
    expect(res.runs).toHaveLength(1);
    expect(await standIn("processes", room)).toMatchObject([
      { command: expect.stringContaining("mkfifo -m 666 gate"), status: "completed" },
      { command: expect.stringContaining("read line < gate"), status: "killed" },
    ]);
    // Barrier: the gate's reader (the command's shell) goes away while the test still holds
    // the write end, which only a kill does; a command that ran on would keep this loop going.
    let probe: number | null;
    while ((probe = openedForWriting(join(workspace, "gate"))) !== null) {
      closeSync(probe);
      await wait(20);
    }
    closeSync(held);
    expect(existsSync(join(workspace, "second"))).toBe(false);
    expect(existsSync(join(workspace, "next"))).toBe(false);
  }
});

/** A write end of the FIFO when something has it open for reading; null when nothing does. */
function openedForWriting(fifo: string): number | null {
  try {
    return openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENXIO") return null;
    throw err;
  }
}
