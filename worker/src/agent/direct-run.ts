import { sandboxName, type RunResult } from "@duet/shared";
import type { Outcome } from "./outcome.ts";
import { UNKNOWN_OUTCOME } from "./turn.ts";

/**
 * Answers for `/sandbox/exec` (a person running a command directly, without the
 * model). Kept apart from conversation turns: a direct run writes no history,
 * but with an idempotency key its answer is stored so a replay never runs the
 * command again.
 */

export function execOutcome(roomId: string, run: RunResult): Outcome {
  return {
    status: 200,
    body: {
      result: {
        stdout: run.stdout,
        stderr: run.stderr,
        exitCode: run.exitCode,
        success: run.exitCode === 0,
        truncated: run.truncated,
        durationMs: run.durationMs,
        ...(run.error !== undefined ? { error: run.error } : {}),
      },
      sandboxName: sandboxName(roomId),
    },
  };
}

/** A keyed run that was in flight when the Worker died: it may have run, so it is not run again. */
export function unknownRunOutcome(roomId: string, cmd: string): Outcome {
  return execOutcome(roomId, { cmd, exitCode: null, stdout: "", stderr: UNKNOWN_OUTCOME, truncated: false, durationMs: 0 });
}
