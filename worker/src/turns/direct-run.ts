import { DuetError, sandboxName, type ExecRequest, type RunResult } from "@duet/shared";
import type { Outcome } from "../outcome.ts";
import type { StoredAnswer } from "../storage/turn-types.ts";
import { runNote } from "./history-notes.ts";
import { runCommand, withWorkspaceNote } from "./run-command.ts";
import { saveAfter } from "./turn-outcomes.ts";
import { replayKey, type TurnWork } from "./turn-work.ts";

/**
 * `/sandbox/exec`: a person running a command directly, without the model.
 * A direct run joins the room's history as `Run: <cmd>` (see
 * history-notes.ts); with an idempotency key its answer is kept so a replay
 * never runs the command again.
 */

/**
 * Runs a direct command in the room's queue. An unkeyed run writes its one
 * history row when it ends; a keyed one writes its row when accepted (so a
 * restart knows it may have run) and its answer into the same row: two rows.
 * Each also has its audit row.
 */
export async function runDirect(work: TurnWork, req: ExecRequest): Promise<Outcome> {
  const { ledger, roomId } = work.room;
  const key = req.idempotencyKey ?? null;
  if (key) {
    const replay = await work.replays.find(replayKey("exec", key), () => {
      const stored = ledger.answered("exec", key);
      return stored ? storedExecOutcome(roomId, stored) : null;
    });
    if (replay) return replay;
  }
  const userId = req.userId || null;
  const deps = work.deps(userId);
  const receivedAt = Date.now();
  const place = work.queue.admit();
  const turn = key ? work.accept(place, () => ledger.accept({ kind: "exec", idemKey: key, userId, question: deps.redact(req.cmd), receivedAt })) : null;
  const epoch = work.epoch;
  const answer = work.start(turn, place, async (t) => {
    try {
      await work.room.ensureRegistered();
      if (!deps.executor) throw new DuetError("sandbox_error", deps.executorProblem ?? "no sandbox is configured", { status: 503 });
      // The room's stop kills a direct run as it kills a turn's command.
      const { result: ran, stopped } = await work.live.runStoppable(`exec:${key ?? "unkeyed"}`, (stop) => runCommand(deps, req.cmd, stop));
      // The executor failed to answer: nothing is stored, so a retry may run it.
      if (ran.error !== undefined && !stopped) throw new DuetError("sandbox_error", ran.error);
      const run = withWorkspaceNote(ran, epoch === work.epoch ? await saveAfter(deps) : null);
      // A room deleted while the command ran starts its new history clean.
      if (epoch === work.epoch) {
        const note = runNote(userId, run, receivedAt);
        if (t) ledger.finishRun(t, note);
        else ledger.note(note);
      }
      work.room.control.recordRuns("direct", [run], userId, stopped ? { index: 0, ...(stopped.by ? { by: stopped.by } : {}) } : undefined);
      return execOutcome(roomId, run);
    } catch (err) {
      if (t && epoch === work.epoch) ledger.drop(t);
      throw err;
    }
  });
  return key ? work.replays.track(replayKey("exec", key), answer) : answer;
}

/** A direct run's answer. */
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
