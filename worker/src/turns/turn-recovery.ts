import { parseTraceparent } from "@duet/shared";
import { readDeliverColumn } from "../storage/delivery-rows.ts";
import { TurnChannel } from "../live/turn-channel.ts";
import { agentSpan } from "../tracing.ts";
import { runNote } from "./history-notes.ts";
import type { MessageTurns } from "./message-turns.ts";
import { unknownRun } from "./run-command.ts";
import { UNKNOWN_OUTCOME } from "./run-turn.ts";
import type { TurnWork } from "./turn-work.ts";

/**
 * Resumes the turns a previous instance accepted and never answered
 * (eviction, redeploy, crash), in arrival order, ahead of any new turn. A
 * retry with the same key then joins the resumed turn. A keyed direct run
 * or an approved command that was cut off may have run, so it is recorded
 * as unknown, never re-run.
 */
export function recoverTurns(work: TurnWork, messages: MessageTurns): void {
  const { ledger, control } = work.room;
  for (const turn of ledger.pending("message")) {
    try {
      const epoch = work.epoch;
      const channel = new TurnChannel();
      // A turn kept for delivery kept its trace: the resumed turn joins it, under the interrupted turn's span; any other starts a trace of its own.
      const parent = turn.deliver ? parseTraceparent(readDeliverColumn(turn.deliver).traceparent) : null;
      const span = agentSpan(work.tracing, work.room.roomId, parent).set({ "duet.turn.resumed": true });
      const answer = work.start(turn, work.queue.admit(), (t) => messages.answer(t, epoch, channel, false, true, span));
      if (turn.idemKey) messages.track(turn.idemKey, channel, answer);
    } catch (err) {
      // The queue is full: the turn stays pending and is resumed by the next instance.
      console.error("a pending turn could not be resumed", err);
    }
  }
  for (const turn of ledger.pending("exec")) {
    const run = { ...unknownRun(turn.question, UNKNOWN_OUTCOME), stderr: UNKNOWN_OUTCOME };
    ledger.finishRun(turn, runNote(turn.userId, run, turn.receivedAt));
  }
  work.room.atomically(() => {
    for (const { by, run, at } of control.recoverCutOff((cmd) => unknownRun(cmd, UNKNOWN_OUTCOME))) ledger.note(runNote(by, run, at));
  });
}
