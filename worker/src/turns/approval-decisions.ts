import { DuetError, type DecisionRequest, type DecisionResponse, type RunResult } from "@duet/shared";
import { ok, type Outcome } from "../outcome.ts";
import { runNote, skipNote } from "./history-notes.ts";
import { runCommand, withWorkspaceNote } from "./run-command.ts";
import { saveAfter } from "./turn-outcomes.ts";
import type { TurnWork } from "./turn-work.ts";

/**
 * A person ran or skipped a command proposed under `approve`. Unknown,
 * expired and decided approvals are refused before anything is queued; the
 * decision is then admitted to the room's queue and taken in the same tick,
 * so a second click is refused at once and nothing runs twice. Both go
 * through the queue: a run must not run beside a turn, and the decision's
 * line in the history takes its place now, ahead of turns accepted after
 * it. A skip answers without waiting for its line.
 */
export async function decideApproval(work: TurnWork, approvalId: string, req: DecisionRequest): Promise<Outcome> {
  const { control, ledger } = work.room;
  // The command runs for whoever decided it.
  const deps = work.deps(req.userId);
  control.check(approvalId, req);
  const place = work.queue.admit();
  const decided = work.accept(place, () => control.decide(approvalId, req));
  const seq = ledger.reserveSeq();
  const epoch = work.epoch;
  const ensureCurrent = () => {
    if (epoch !== work.epoch) throw new DuetError("not_found", "this room was deleted while the command waited or ran");
  };
  const done = place.run(async (): Promise<RunResult | undefined> => {
    ensureCurrent();
    if (decided.toRun === undefined) {
      ledger.note(skipNote(req.userId, decided.cmd, decided.at), seq);
      return undefined;
    }
    const cmd = decided.toRun;
    // A stop of the room kills it as it would a turn's command. Nothing is written into a room deleted while it ran.
    const { result: ran, stopped } = await work.live.runStoppable(`decision:${approvalId}`, (stop) => runCommand(deps, cmd, stop));
    ensureCurrent();
    const run = withWorkspaceNote(ran, await saveAfter(deps));
    work.room.atomically(() => {
      const ended = control.finishRun(decided.approval, stopped ? { run, stopped: stopped.by ? { by: stopped.by } : {} } : { run });
      ledger.note(runNote(ended.by, ended.run, ended.at), seq);
    });
    return run;
  });
  if (decided.toRun === undefined) {
    done.catch((err) => console.error("a skipped command could not be added to the history", err));
    const body: DecisionResponse = { approval: decided.view };
    return ok(body);
  }
  const body: DecisionResponse = { approval: decided.view, run: await done };
  return ok(body);
}
