import { PassThrough } from "node:stream";
import { queuedNote } from "@duet/shared";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runCli } from "../../scripts/duet-cli.ts";
import { startStack, type Stack } from "../helpers/stack.ts";
import { fakeTerminal } from "./fake-terminal.ts";

/**
 * `duet ask` against the real Worker: the answer is printed as the model writes
 * it, each command as it runs, and Ctrl-C stops the room's turn. "Before the
 * model finished" is proven by holding the model, never by timing.
 */

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

const terminal = () => fakeTerminal(stack);

const release = (name: string) => fetch(`${stack.model.url}/_release/${name}`, { method: "POST" });
const aborted = async (name: string) => ((await (await fetch(`${stack.model.url}/_aborted/${name}?waitMs=10000`)).json()) as { aborted: boolean }).aborted;

describe("duet ask, live", () => {
  it("prints the answer as it is written, then each command as it runs", async () => {
    const t = terminal();
    const done = runCli(["ask", "cli-live-print", "HOLD:cli-print CHUNK:12 SAY: Checking the tree now.\n<run>echo tree-ok</run>\nAll good."], t.io);
    // The model is held after its first piece: this text was printed before it finished.
    await t.until("Checking");
    expect(t.printed()).not.toContain("All good");
    await release("cli-print");
    expect(await done).toBe(0);
    expect(t.printed()).toMatch(/^Checking the tree now\.\n[\s\S]*\$ echo tree-ok running…\n {2}exit 0 · [\d.]+ m?s\n {2}│ tree-ok\n/);
    expect(t.printed()).toContain("All good.");
  });

  it("stops the room's turn on Ctrl-C", async () => {
    const t = terminal();
    const done = runCli(["ask", "cli-live-stop", "HANG:cli-stop CHUNK:10 SAY: Working on it, still working"], t.io);
    await t.until("Working");
    t.ctrlC();
    expect(await aborted("cli-stop")).toBe(true);
    expect(await done).toBe(0);
    expect(t.printed()).toContain("Stopping Duet's answer.");
    expect(t.printed()).toContain("Stopped before it finished.");
  });
});

describe("duet ask behind another question in the room", () => {
  it("prints the asker's place once, before the answer", async () => {
    const first = terminal();
    const held = runCli(["ask", "cli-live-queue", "HOLD:cli-queue CHUNK:8 SAY: first-in-line answer"], first.io);
    // The model has the first question and holds its answer: the room is busy with it.
    await vi.waitFor(() => expect(stack.model.calls.filter((c) => JSON.stringify(c).includes("HOLD:cli-queue"))).toHaveLength(1), { timeout: 20_000 });
    const t = terminal();
    const done = runCli(["ask", "cli-live-queue", "SAY: second-in-line answer"], t.io);
    // Told while the first answer is still held: nothing of theirs has run.
    await t.until(queuedNote(1));
    await release("cli-queue");
    expect([await held, await done]).toEqual([0, 0]);
    expect(t.printed().split(queuedNote(1))).toHaveLength(2);
    expect(t.printed().indexOf(queuedNote(1))).toBeLessThan(t.printed().indexOf("second-in-line answer"));
    expect(first.printed()).not.toContain("ahead of yours");
  });
});

describe("the live CLI under approve", () => {
  it("`duet ask` lists the proposed commands, numbered, with their ids, and runs none", async () => {
    await stack.client.setPolicy("cli-live-approve", { runPolicy: "approve", userId: "cli:tester" });
    const t = terminal();
    expect(await runCli(["ask", "cli-live-approve", "CHUNK:8 SAY: Two steps. <run>echo live-first</run> <run>echo live-second</run>"], t.io)).toBe(0);
    expect(t.printed()).toContain("Two steps.");
    expect(t.printed()).toMatch(/Waiting for approval \(run policy: approve\):\n {2}\[1\] echo live-first\n {6}id [0-9a-f-]{36}\n {2}\[2\] echo live-second\n {6}id [0-9a-f-]{36}\n/);
    expect(stack.executor!.calls.some((c) => c.command.startsWith("echo live-"))).toBe(false);
  });

  it("`duet chat` lists them too, and /approve 1 runs the first", async () => {
    await stack.client.setPolicy("cli-chat-approve", { runPolicy: "approve", userId: "cli:tester" });
    const t = fakeTerminal(stack, ["CHUNK:8 SAY: One step. <run>echo chat-live-one</run>", "/approve 1"]);
    expect(await runCli(["chat", "cli-chat-approve"], t.io)).toBe(0);
    expect(t.printed()).toMatch(/Waiting for approval \(run policy: approve\):\n {2}\[1\] echo chat-live-one\n {6}id [0-9a-f-]{36}\n/);
    expect(t.printed()).toContain("ran `echo chat-live-one`");
    expect(stack.executor!.calls.some((c) => c.command === "echo chat-live-one")).toBe(true);
  });
});

describe("Ctrl-C during a direct run", () => {
  /** Waits until the sandbox received `cmd`: the command is running, so a stop has something to kill. */
  const started = (cmd: string) => vi.waitFor(() => expect(stack.executor!.calls.some((c) => c.command === cmd)).toBe(true), { timeout: 20_000, interval: 50 });

  async function expectStoppedInAudit(room: string, cmd: string) {
    const { entries } = await stack.client.audit(room);
    expect(entries.find((e) => e.cmd === cmd)).toMatchObject({ kind: "direct", stopped: true, stoppedBy: expect.stringMatching(/^cli:/) });
    // The Worker hangs up on the executor as it records the stop; the executor lists the command once
    // its process is gone, which may come after the audit answered.
    await vi.waitFor(() => expect(stack.executor!.killed).toContain(cmd), { timeout: 10_000, interval: 50 });
  }

  it("`duet run` stops the command through the room's stop, and the audit says stopped", async () => {
    const t = terminal();
    const done = runCli(["run", "cli-run-stop", "sleep 29"], t.io);
    await started("sleep 29");
    t.ctrlC();
    expect(await done).toBe(1);
    expect(t.printed()).toContain("Stopping the command.");
    expect(t.printed()).toMatch(/\$ sleep 29\n {2}failed: stopped by cli:/);
    await expectStoppedInAudit("cli-run-stop", "sleep 29");
    // The room is free again: the next command runs at once.
    expect(await runCli(["run", "cli-run-stop", "echo after-stop"], terminal().io)).toBe(0);
  });

  it("`!cmd` in `duet chat` stops the same way, and the chat goes on", async () => {
    const input = new PassThrough();
    const t = fakeTerminal(stack);
    t.io.stdin = input;
    const done = runCli(["chat", "cli-chat-stop"], t.io);
    input.write("!sleep 28\n");
    await started("sleep 28");
    t.ctrlC();
    await t.until("failed: stopped by");
    input.end("!echo chat-goes-on\n");
    // The chat went on; it exits 1 because a line (the stopped command) failed.
    expect(await done).toBe(1);
    expect(t.printed()).toContain("Stopping the command.");
    expect(t.printed()).toContain("chat-goes-on");
    await expectStoppedInAudit("cli-chat-stop", "sleep 28");
  });
});

describe("long output", () => {
  it("is cut to about a screenful, start and end, with one line saying what was cut and by which limit", async () => {
    const t = terminal();
    expect(await runCli(["run", "cli-long-output", "seq 1 200000"], t.io)).toBe(0);
    const lines = t.printed().trimEnd().split("\n");
    expect(lines.length).toBeLessThanOrEqual(45);
    expect(lines).toContain("  │ 1");
    expect(lines.filter((l) => l.includes("omitted"))).toEqual([expect.stringMatching(/^ {2}│ … [\d,]+ lines \([\d,]+ characters\) omitted; the CLI shows about 40 lines of a command's output …$/)]);
    // The Worker keeps the first 64 KiB of a stream: the end shown is the end of what it kept, and the status says so.
    expect(t.printed()).toContain("output truncated");
  });
});
