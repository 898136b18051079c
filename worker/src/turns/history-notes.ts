import type { RunResult } from "@duet/shared";
import { buildReply } from "../reply/reply-text.ts";
import type { HistoryNote } from "../storage/turn-types.ts";

/**
 * The history's words for what happened without a model turn, written once
 * here so every way a command runs tells the same story: a command someone
 * ran (approved, or run directly) is `Run: <cmd>` and its output as an
 * answer's sections show it; a skipped one says who skipped it. The model's
 * next context reads these lines too.
 */

/** A command that ran (or whose outcome is unknown), as `Run: <cmd>` and its result; `run` is redacted already. */
export function runNote(userId: string | null, run: RunResult, at: number): HistoryNote {
  return { userId, question: `Run: ${run.cmd}`, reply: buildReply("", [run], []), runs: [run], at };
}

/** A proposed command someone skipped; `cmd` is redacted already. */
export function skipNote(userId: string, cmd: string, at: number): HistoryNote {
  return { userId, question: `Skip: ${cmd}`, reply: `Skipped by ${userId}; not run: ${cmd}`, runs: [], at };
}
