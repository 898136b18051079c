import { describe, expect, it } from "vitest";
import type { TurnStreamEvent } from "../schemas.ts";
import { applyLiveEvent, emptyLiveAnswer, type LiveAnswer, liveRunViews, liveText } from "./live-answer.ts";

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

  it("holds back the last word until it is whole, so a secret split across deltas never shows in part", () => {
    const token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
    const first = replay([{ event: "text", data: { delta: `The token is ${token.slice(0, 10)}` } }]);
    expect(liveText(first)).toBe("The token is ");
    const whole = applyLiveEvent(first, { event: "text", data: { delta: `${token.slice(10)} ok` } });
    expect(liveText(whole)).toBe("The token is ghp_[redacted] ");
    expect(liveText(whole, [], true)).toBe("The token is ghp_[redacted] ok");
    expect(liveText(replay([{ event: "run-start", data: { index: 0, cmd: "x" } }]))).toBe("");
  });

  it("redacts secrets in commands, and the bot's own tokens", () => {
    const patterned = replay([{ event: "run-start", data: { index: 0, cmd: "curl -H 'Authorization: Bearer xoxb-very-secret-bot-token'" } }]);
    expect(liveRunViews(patterned)[0].command).not.toContain("very-secret");
    // A token no pattern knows: only the bot's own list can catch it, in the command and in the text.
    const own = "duet4f9a2c7e1b";
    const a = replay([{ event: "text", data: { delta: `Using ${own} now ` } }, { event: "run-start", data: { index: 0, cmd: `echo ${own}` } }]);
    expect(liveRunViews(a)[0].command).toBe(`$ echo ${own}`);
    expect(liveRunViews(a, [own])[0].command).not.toContain(own);
    expect(liveText(a, [own])).not.toContain(own);
  });
});
