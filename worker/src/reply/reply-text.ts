import { notRunText, REPLY_SUMMARY_CHARS, type RunResult } from "@duet/shared";

/**
 * The reply as plain text (what a client that renders nothing shows, and what
 * the history keeps): explanation, then `Output (cmd):` / `Error (cmd):`
 * sections, then a `Waiting for approval:` line per command proposed under `approve`.
 */
export function buildReply(explanation: string, runs: RunResult[], skipped: string[], waiting: string[] = []): string {
  let text = explanation;
  for (const run of runs) {
    if (run.error !== undefined || run.exitCode === null) {
      text += `\n\nError (${run.cmd}):\n${run.error ?? "outcome unknown"}`;
      continue;
    }
    const summary = run.stdout.slice(0, REPLY_SUMMARY_CHARS) || run.stderr.slice(0, REPLY_SUMMARY_CHARS) || "[no output]";
    text += `\n\nOutput (${run.cmd}):\n${summary}`;
  }
  for (const cmd of waiting) text += `\n\nWaiting for approval: ${cmd}`;
  if (skipped.length > 0) {
    text += `\n\n${notRunText(runs.length + waiting.length, skipped.map((c) => `\`${c}\``))}`;
  }
  return text.trim();
}
