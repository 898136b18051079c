import { sandboxName, type RunResult } from "@duet/shared";
import type { Outcome } from "../outcome.ts";
import type { StoredAnswer } from "../storage/turn-types.ts";

/**
 * Answers for `/sandbox/exec` (a person running a command directly, without
 * the model). A direct run joins the room's history as `Run: <cmd>` (see
 * history-notes.ts); with an idempotency key its answer is kept so a replay
 * never runs the command again.
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

/**
 * A keyed run's stored answer as its replay: rebuilt from the run it stored.
 * A run stored before direct runs joined the history kept its whole outcome.
 */
export function storedExecOutcome(roomId: string, stored: StoredAnswer): Outcome {
  const run = stored.runs?.[0];
  return run ? execOutcome(roomId, run) : (stored as unknown as Outcome);
}
