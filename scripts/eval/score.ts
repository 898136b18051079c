import { CUT_OFF_NOTE, NOT_RUN_NOTE, PLACEHOLDER_NOTE, type RunResult } from "@duet/shared";
import type { Scenario } from "./scenarios.ts";

/**
 * Scoring for `pnpm eval`: pure, from what the Worker answered (the explanation
 * people see and the commands Duet ran), so the same rules judge a live model
 * and the fixture corpus.
 */
export interface Answer {
  explanation: string;
  runs: RunResult[];
  skipped?: string[];
}

/** How the model answered: tags, a shell block without tags, no command, only a placeholder, or cut off mid-command. */
export type AnswerShape = "tags" | "untagged-block" | "no-command" | "placeholder" | "cut-off";

export interface Score {
  usedTags: boolean;
  /** "error" when the turn failed (the model errored or timed out). */
  shape: AnswerShape | "error";
  commands: string[];
  pass: boolean;
  problems: string[];
}

export function shapeOf(answer: Answer): AnswerShape {
  if (answer.runs.length > 0 || (answer.skipped?.length ?? 0) > 0) return "tags";
  if (answer.explanation.includes(CUT_OFF_NOTE)) return "cut-off";
  if (answer.explanation.includes(PLACEHOLDER_NOTE)) return "placeholder";
  if (answer.explanation.includes(NOT_RUN_NOTE)) return "untagged-block";
  return "no-command";
}

export function scoreAnswer(scenario: Scenario, answer: Answer): Score {
  const shape = shapeOf(answer);
  const commands = answer.runs.map((r) => r.cmd);
  const problems: string[] = [];
  if (!scenario.needsCommand) {
    if (commands.length > 0) problems.push("ran a command where none was needed");
  } else if (shape !== "tags") {
    problems.push(
      {
        "untagged-block": "wrote the command in a code block without tags: nothing ran",
        placeholder: "wrote a placeholder instead of a command",
        "cut-off": "was cut off inside a command (raise MODEL_MAX_TOKENS?)",
        "no-command": "answered without running a command",
      }[shape],
    );
  } else {
    if (scenario.command && !commands.some((c) => scenario.command!.test(c))) problems.push(`no command like ${scenario.command}`);
    const failed = answer.runs.filter((r) => r.exitCode !== 0);
    if (failed.length) problems.push(`failed: ${failed.map((r) => `${r.cmd} (${r.error ?? `exit ${r.exitCode}`})`).join("; ")}`);
    if (scenario.output && !answer.runs.some((r) => scenario.output!.test(r.stdout))) problems.push(`no output showing ${scenario.output}`);
  }
  if (scenario.answer && !scenario.answer.test(answer.explanation)) problems.push(`the answer does not say ${scenario.answer}`);
  return { usedTags: shape === "tags", shape, commands, pass: problems.length === 0, problems };
}

export interface EvalRow {
  scenario: string;
  score: Score;
}

/** The summary an operator reads: one row per scenario, then the count. */
export function formatTable(rows: EvalRow[]): string {
  const header = ["scenario", "tags", "ran", "shape", "result"];
  const cells = rows.map(({ scenario, score }) => [
    scenario,
    score.usedTags ? "yes" : "no",
    String(score.commands.length),
    score.shape,
    score.pass ? "pass" : `FAIL: ${score.problems.join("; ")}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (i === 4 ? 0 : c[i].length))));
  const line = (c: string[]) => c.map((v, i) => (i === 4 ? v : v.padEnd(widths[i]))).join("  ");
  const passed = rows.filter((r) => r.score.pass).length;
  return [line(header), ...cells.map(line), `${passed}/${rows.length} scenarios passed`].join("\n");
}
