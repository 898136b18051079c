import { describe, expect, it } from "vitest";
import type { TurnStreamEvent } from "../wire/schemas.ts";
import { applyLiveEvent, emptyLiveAnswer, type LiveAnswer, liveRunViews } from "./live-answer.ts";

const run = (index: number, cmd: string, exitCode: number, durationMs: number): TurnStreamEvent => ({
  event: "run-end",
  data: { index, cmd, exitCode, durationMs, stdout: "out", stderr: "", truncated: false },
});

function replay(events: TurnStreamEvent[]): LiveAnswer {
  return events.reduce(applyLiveEvent, emptyLiveAnswer());
}

describe("a live answer", () => {
  it("gathers the text and shows each command running, then its exit code and duration", () => {
    const events: TurnStreamEvent[] = [
      { event: "text", data: { delta: "Let me " } },
      { event: "text", data: { delta: "look.\n" } },
      { event: "run-start", data: { index: 0, cmd: "ls" } },
    ];
    const running = replay(events);
    expect(running.text).toBe("Let me look.\n");
    expect(liveRunViews(running)).toEqual([{ id: "0", command: "$ ls", status: "running…", state: "running" }]);
    const finished = replay([...events, run(0, "ls", 0, 1300), { event: "run-start", data: { index: 1, cmd: "false" } }, run(1, "false", 1, 12)]);
    expect(liveRunViews(finished)).toEqual([
      { id: "0", command: "$ ls", status: "exit 0 · 1.3 s", state: "ok" },
      { id: "1", command: "$ false", status: "exit 1 · 12 ms", state: "failed" },
    ]);
  });

  it("leaves the answer as it is for done and error, and takes a run-end without its run-start", () => {
    const a = replay([{ event: "text", data: { delta: "hi" } }, { event: "done", data: { reply: "hi", messages: [], runs: [] } }, run(0, "pwd", 0, 5)]);
    expect(a.text).toBe("hi");
    expect(a.runs).toMatchObject([{ index: 0, state: "done" }]);
  });
});
