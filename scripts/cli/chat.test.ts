import { describe, expect, it } from "vitest";
import { parseChatLine } from "./chat.ts";

describe("parseChatLine", () => {
  it("names the chat's own commands in a schedule's usage, never the Slack slash command", () => {
    const unschedule = parseChatLine("/unschedule");
    expect(unschedule).toMatchObject({ kind: "unknown", word: expect.stringContaining("`/unschedule` needs the schedule's id, as `/schedules` lists it, e.g. `/unschedule 3f9a1c2b`") });
    const schedule = parseChatLine("/schedule every 2h");
    expect(schedule).toMatchObject({ kind: "unknown", word: expect.stringContaining("`/schedule every 2h check disk space`") });
    expect(JSON.stringify([unschedule, schedule])).not.toContain("/duet");
  });

  it("treats a plain line as a question and ! as a direct run", () => {
    expect(parseChatLine("why is the build slow?")).toEqual({ kind: "ask", text: "why is the build slow?" });
    expect(parseChatLine("!ls -la")).toEqual({ kind: "run", cmd: "ls -la" });
    expect(parseChatLine("  ! echo hi  ")).toEqual({ kind: "run", cmd: "echo hi" });
  });

  it("knows the slash commands, case-insensitively", () => {
    expect(parseChatLine("/history")).toEqual({ kind: "history" });
    expect(parseChatLine("/RESET")).toEqual({ kind: "reset" });
    expect(parseChatLine("/quit")).toEqual({ kind: "quit" });
    expect(parseChatLine("/exit")).toEqual({ kind: "quit" });
    expect(parseChatLine("/help")).toEqual({ kind: "help" });
    expect(parseChatLine("/deploy now")).toEqual({ kind: "unknown", word: "/deploy" });
    expect(parseChatLine("/policy")).toEqual({ kind: "policy" });
    expect(parseChatLine("/policy APPROVE")).toEqual({ kind: "policy", runPolicy: "approve" });
    expect(parseChatLine("/policy yolo")).toEqual({ kind: "unknown", word: "/policy yolo" });
    expect(parseChatLine("/model")).toEqual({ kind: "model" });
    expect(parseChatLine("/model fake-large")).toEqual({ kind: "model", model: "fake-large" });
    expect(parseChatLine("/usage")).toEqual({ kind: "usage" });
    expect(parseChatLine("/audit")).toEqual({ kind: "audit" });
    expect(parseChatLine("/approve")).toEqual({ kind: "decide", decision: "run" });
    expect(parseChatLine("/APPROVE 2")).toEqual({ kind: "decide", decision: "run", pick: 2 });
    expect(parseChatLine("/skip 10")).toEqual({ kind: "decide", decision: "skip", pick: 10 });
  });

  it("reads /repo with the shared reader: show, link, unlink, and a bad name as one line", () => {
    expect(parseChatLine("/repo")).toEqual({ kind: "repo" });
    expect(parseChatLine("/repo acme/widgets@main")).toEqual({ kind: "repo", change: { repo: "acme/widgets", branch: "main" } });
    expect(parseChatLine("/REPO unlink")).toEqual({ kind: "repo", change: "unlink" });
    expect(parseChatLine("/repo a/b/c")).toEqual({ kind: "unknown", word: '/repo: Repository must be owner/name (one "/"); e.g. `acme/widgets` or `acme/widgets@main`.' });
  });

  it("refuses an approval number that is not one", () => {
    for (const bad of ["0", "-1", "1.5", "one", "1 2", "9999", "1; rm -rf /", "x".repeat(5000)]) {
      const parsed = parseChatLine(`/approve ${bad}`);
      expect(parsed.kind, bad).toBe("unknown");
      expect((parsed as { word: string }).word.length).toBeLessThanOrEqual(40);
    }
  });

  it("skips blank lines and a lone !", () => {
    expect(parseChatLine("   ")).toEqual({ kind: "skip" });
    expect(parseChatLine("!")).toEqual({ kind: "skip" });
  });
});
