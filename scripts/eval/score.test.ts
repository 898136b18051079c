import type { RunResult } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { modelAnswers } from "../../worker/test/fixtures/model-answers/index.ts";
import { formatTable, scoreAnswer, shapeOf, type Answer } from "./score.ts";
import { SCENARIOS } from "./scenarios.ts";

const ran = (cmd: string, stdout = "", exitCode = 0): RunResult => ({ cmd, exitCode, stdout, stderr: "", truncated: false, durationMs: 1 });
const scenario = (name: string) => SCENARIOS.find((s) => s.name === name)!;

describe("eval scoring", () => {
  it("tells every answer shape in the fixture corpus from what the Worker answers", () => {
    for (const f of modelAnswers) {
      const answer: Answer = { explanation: f.explanation, runs: f.commands.map((c) => ran(c)), skipped: f.skipped };
      expect(shapeOf(answer), f.name).toBe(f.shape);
    }
  });

  it("passes the two-people question only when the answer names who said what", () => {
    const s = scenario("two people");
    expect(scoreAnswer(s, { explanation: "Ada is deploying the billing service at 3pm.", runs: [] }).pass).toBe(true);
    expect(scoreAnswer(s, { explanation: "Someone is deploying the billing service.", runs: [] }).problems).toEqual([`the answer does not say ${s.answer}`]);
  });

  it("passes a needed command only with tags, the right command and real output", () => {
    const s = scenario("create and show a file");
    expect(scoreAnswer(s, { explanation: "", runs: [ran("echo 'hello duet' > hello.txt"), ran("cat hello.txt", "hello duet\n")] })).toEqual({
      usedTags: true,
      shape: "tags",
      commands: ["echo 'hello duet' > hello.txt", "cat hello.txt"],
      pass: true,
      problems: [],
    });
    expect(scoreAnswer(s, { explanation: "", runs: [ran("cat hello.txt", "", 1)] }).problems).toEqual([
      "failed: cat hello.txt (exit 1)",
      "no output showing /hello duet/",
    ]);
    expect(scoreAnswer(s, { explanation: "", runs: [ran("ls")] }).problems[0]).toBe("no command like /hello\\.txt/");
  });

  it("fails each fixture shape that ran nothing where a command was needed, naming why", () => {
    const s = scenario("disk usage");
    const problems = new Map<string, string[]>();
    for (const f of modelAnswers.filter((a) => a.shape !== "tags")) {
      problems.set(f.shape, scoreAnswer(s, { explanation: f.explanation, runs: [] }).problems);
    }
    expect(Object.fromEntries(problems)).toEqual({
      "no-command": ["answered without running a command"],
      placeholder: ["wrote a placeholder instead of a command"],
      "cut-off": ["was cut off inside a command (raise MODEL_MAX_TOKENS?)"],
      "untagged-block": ["wrote the command in a code block without tags: nothing ran"],
    });
  });

  it("fails a question that needs no command when something ran", () => {
    const s = scenario("no command needed");
    expect(scoreAnswer(s, { explanation: "It prints sizes for people.", runs: [] }).pass).toBe(true);
    expect(scoreAnswer(s, { explanation: "", runs: [ran("df -h")] }).problems).toEqual(["ran a command where none was needed"]);
  });

  it("prints one aligned row per scenario and the count", () => {
    const table = formatTable([
      { scenario: "list files", score: scoreAnswer(scenario("list files"), { explanation: "", runs: [ran("ls", "a.txt b.txt\n")] }) },
      { scenario: "disk usage", score: scoreAnswer(scenario("disk usage"), { explanation: "Run du -sh .", runs: [] }) },
    ]);
    expect(table).toBe(
      [
        "scenario    tags  ran  shape       result",
        "list files  yes   1    tags        pass",
        "disk usage  no    0    no-command  FAIL: answered without running a command",
        "1/2 scenarios passed",
      ].join("\n"),
    );
  });
});
