import { EventEmitter } from "node:events";
import { PassThrough, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../scripts/duet-cli.ts";
import { startStack, type Stack } from "./helpers/stack.ts";

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

/** A terminal: what was printed, a way to wait for some text, and a Ctrl-C key. */
function terminal() {
  let printed = "";
  const changed = new EventEmitter();
  const stdout = new Writable({
    write(chunk, _enc, done) {
      printed += String(chunk);
      changed.emit("change");
      done();
    },
  });
  const stderr = new Writable({
    write(chunk, _enc, done) {
      printed += String(chunk);
      changed.emit("change");
      done();
    },
  });
  const interrupts = new EventEmitter();
  return {
    io: {
      env: { DUET_WORKER_URL: stack.workerUrl, DUET_API_TOKEN: stack.token, NO_COLOR: "1" },
      stdin: new PassThrough(),
      stdout,
      stderr,
      onInterrupt: (handler: () => void) => {
        interrupts.on("ctrl-c", handler);
        return () => void interrupts.off("ctrl-c", handler);
      },
    },
    printed: () => printed,
    ctrlC: () => interrupts.emit("ctrl-c"),
    until: (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => printed.includes(text) && (changed.off("change", check), resolve());
        changed.on("change", check);
        check();
      }),
  };
}

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
    expect(t.printed()).toContain("Stopping Duet's answer…");
    expect(t.printed()).toContain("(stopped)");
  });
});
