import { applyLiveEvent, emptyLiveAnswer, type LiveAnswer, type MessageResponse, redactingView, type TurnStreamEvent } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { LivePrinter } from "./live.ts";
import { makeStyle } from "./render.ts";

const done = { reply: "", messages: [], runs: [] as never[] };

/** Feeds events one by one through the flow's redaction, as the flow does, and returns what was printed. */
function printer() {
  // One terminal: stdout's writes and stderr's lines interleave in it.
  const written: string[] = [];
  const p = new LivePrinter((t) => written.push(t), makeStyle(false));
  const view = redactingView({ update: (a) => p.update(a), finish: async (reply, ended) => (reply.kind === "answer" && p.finish(reply.answer, ended), null) }, []);
  let answer: LiveAnswer = emptyLiveAnswer();
  return {
    feed: (event: string, data: unknown) => {
      answer = applyLiveEvent(answer, { event, data } as TurnStreamEvent);
      view.update(answer);
    },
    finish: (res: MessageResponse) => void view.finish({ kind: "answer", answer: res, question: "", user: "" }),
    notice: (text: string) => p.notice((line) => written.push(`${line}\n`), text),
    text: () => written.join(""),
  };
}

describe("duet ask, live", () => {
  it("prints the text as it arrives, each command when it starts and its status and output when it ends", () => {
    const p = printer();
    p.feed("text", { delta: "Let me list " });
    expect(p.text()).toBe("Let me list ");
    p.feed("text", { delta: "the files:" });
    p.feed("run-start", { index: 0, cmd: "ls" });
    expect(p.text()).toBe("Let me list the files:\n$ ls running…\n");
    p.feed("run-end", { index: 0, cmd: "ls", exitCode: 0, durationMs: 12, stdout: "a.txt\n", stderr: "", truncated: false });
    p.feed("text", { delta: "Done." });
    p.finish({ ...done, stopped: true });
    expect(p.text()).toBe("Let me list the files:\n$ ls running…\n  exit 0 · 12 ms\n  │ a.txt\nDone.\nStopped before it finished.\n");
  });

  it("never prints part of a secret that arrives in pieces", () => {
    const p = printer();
    const token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
    p.feed("text", { delta: `token ${token.slice(0, 12)}` });
    p.feed("text", { delta: `${token.slice(12)} end` });
    p.finish(done);
    expect(p.text()).not.toContain(token.slice(4, 12));
    expect(p.text()).toBe("token ghp_[redacted] end\n");
  });

  it("puts the stop notice on a line of its own, between whole words", () => {
    const p = printer();
    p.feed("text", { delta: "It finishes writ" });
    p.notice("Stopping Duet's answer.");
    p.feed("text", { delta: "ing the file" });
    p.finish({ ...done, stopped: true });
    const lines = p.text().split("\n");
    expect(lines).toContain("Stopping Duet's answer.");
    // The answer's words read whole once the notice is taken out, none cut by it.
    expect(lines.filter((l) => l !== "Stopping Duet's answer.").join(" ").replace(/\s+/g, " ")).toBe("It finishes writing the file Stopped before it finished. ");
  });
});
