import { type LiveAnswer, PANE_WORDS } from "@duet/shared";
import { type Logger, LogLevel } from "@slack/bolt";
import { describe, expect, it } from "vitest";
import { PaneStatus, type StatusArgs } from "./pane-status.ts";

const quiet: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, setLevel: () => {}, getLevel: () => LogLevel.ERROR, setName: () => {} };
const running = (cmd: string): LiveAnswer => ({ text: "", runs: [{ index: 0, cmd, state: "running" }] });

describe("PaneStatus", () => {
  it("names the command running, and its clear lands last even while an earlier status is still on its way", async () => {
    const sent: string[] = [];
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const status = new PaneStatus(async (a: StatusArgs) => {
      if (a.status === PANE_WORDS.thinking) await slow;
      sent.push(a.status);
    }, quiet);
    const stop = status.show();
    status.follow(running("npm test"));
    const cleared = status.clear();
    release();
    await Promise.all([cleared, stop()]);
    expect(sent).toEqual([PANE_WORDS.thinking, PANE_WORDS.running("npm test"), ""]);
    // A state heard after the turn ended sets nothing.
    status.follow(running("npm run build"));
    await status.clear();
    expect(sent).toHaveLength(3);
  });

  it("sets a status once while it is what shows, tells once that the answer began, and a refused call breaks nothing", async () => {
    const sent: string[] = [];
    let started = 0;
    const status = new PaneStatus(async (a: StatusArgs) => {
      sent.push(a.status);
      if (a.status === "") throw new Error("invalid_thread_ts");
    }, quiet, 60_000, () => started++);
    status.show();
    status.follow(running("ls"));
    status.follow(running("ls"));
    status.follow({ text: "done", runs: [{ index: 0, cmd: "ls", state: "done", result: { cmd: "ls", exitCode: 0, stdout: "", stderr: "", truncated: false, durationMs: 1 } }] });
    await status.clear();
    expect(sent).toEqual([PANE_WORDS.thinking, PANE_WORDS.running("ls"), PANE_WORDS.thinking, ""]);
    expect(started).toBe(1);
  });
});
