import { describe, expect, it } from "vitest";
import { LivePrinter } from "./live.ts";
import { makeStyle } from "./render.ts";

const done = { reply: "", messages: [], runs: [] as never[] };

describe("duet ask, live", () => {
  it("prints the text as it arrives, each command when it starts and its status and output when it ends", () => {
    const written: string[] = [];
    const p = new LivePrinter((t) => written.push(t), makeStyle(false), []);
    p.event({ event: "text", data: { delta: "Let me list " } });
    expect(written.join("")).toBe("Let me list ");
    p.event({ event: "text", data: { delta: "the files:" } });
    p.event({ event: "run-start", data: { index: 0, cmd: "ls" } });
    expect(written.join("")).toBe("Let me list the files:\n$ ls running…\n");
    p.event({ event: "run-end", data: { index: 0, cmd: "ls", exitCode: 0, durationMs: 12, stdout: "a.txt\n", stderr: "", truncated: false } });
    p.event({ event: "text", data: { delta: "Done." } });
    p.finish({ ...done, stopped: true });
    expect(written.join("")).toBe("Let me list the files:\n$ ls running…\n  exit 0 · 12 ms\n  │ a.txt\nDone.\n(stopped)\n");
  });

  it("never prints part of a secret that arrives in pieces", () => {
    const written: string[] = [];
    const p = new LivePrinter((t) => written.push(t), makeStyle(false), []);
    const token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
    p.event({ event: "text", data: { delta: `token ${token.slice(0, 12)}` } });
    p.event({ event: "text", data: { delta: `${token.slice(12)} end` } });
    p.finish(done);
    const all = written.join("");
    expect(all).not.toContain(token.slice(4, 12));
    expect(all).toBe("token ghp_[redacted] end\n");
  });
});
