import { combineOutput, headTail, notRunText, REPLY_SUMMARY_CHARS, type RunResult } from "@duet/shared";

/**
 * The reply as plain text (what a client that renders nothing shows, and what
 * the history keeps): explanation, then a section per command headed
 * `Output (cmd):`, `Failed with exit code N (cmd):` or `Error (cmd):`, then a
 * `Waiting for approval:` line per command proposed under `approve`.
 *
 * A section holds stdout and stderr (under `--- stderr ---`), at most
 * REPLY_SUMMARY_CHARS of them: the start and the end around a marker line that
 * says how much was left out, so a cut never passes for the whole.
 */
export function buildReply(explanation: string, runs: RunResult[], skipped: string[], waiting: string[] = []): string {
  let text = explanation;
  for (const run of runs) {
    if (run.error !== undefined || run.exitCode === null) {
      text += `\n\nError (${run.cmd}):\n${run.error ?? "outcome unknown"}`;
      continue;
    }
    const heading = run.exitCode === 0 ? `Output (${run.cmd}):` : `Failed with exit code ${run.exitCode} (${run.cmd}):`;
    text += `\n\n${heading}\n${runSummary(run)}`;
  }
  for (const cmd of waiting) text += `\n\nWaiting for approval: ${cmd}`;
  if (skipped.length > 0) {
    text += `\n\n${notRunText(runs.length + waiting.length, skipped.map((c) => `\`${c}\``))}`;
  }
  return text.trim();
}

/** Said where the sandbox or the Worker kept only the start of a long output: what ends the section is not the command's last line. */
const CUT_BEFORE_END = "[the command printed more than was kept: this is the end of what was kept, not of its output]";

function runSummary(run: RunResult): string {
  const output = combineOutput(run.stdout, run.stderr);
  if (output.trim() === "") return run.truncated ? CUT_BEFORE_END : "[no output]";
  const shown = headTail(output, REPLY_SUMMARY_CHARS, "").text;
  return run.truncated ? `${shown}\n${CUT_BEFORE_END}` : shown;
}
