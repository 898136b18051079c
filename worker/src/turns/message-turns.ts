import { deliverColumn } from "../storage/delivery-rows.ts";
import { type AskTicket, DuetError, errorName, parseTraceparent, type MessageRequest, type Span } from "@duet/shared";
import { TurnChannel } from "../live/turn-channel.ts";
import { speakerOf } from "../model/speakers.ts";
import type { Outcome } from "../outcome.ts";
import { CONTEXT_TURNS } from "../storage/history-view.ts";
import type { LedgerTurn } from "../storage/turn-ledger.ts";
import { agentSpan } from "../tracing.ts";
import { followClaim } from "./claimants.ts";
import { runTurn } from "./run-turn.ts";
import { killedBy, withHistory } from "./turn-outcomes.ts";
import { replayKey, type TurnWork } from "./turn-work.ts";

const DELETED = "this room was deleted while the message was being answered";

/** A message turn as opened: its answer, and the channel of its events (none for a stored answer given again). */
export interface OpenedTurn {
  answer: Promise<Outcome>;
  channel: TurnChannel | null;
  joined: boolean;
}

/**
 * Message turns: a person's message admitted to the room's queue, its
 * budget checked once, its ledger rows written (accepted, progress,
 * answered, dropped) and its answer kept for a retry with the same key.
 */
export class MessageTurns {
  constructor(private readonly work: TurnWork) {}

  /**
   * Starts the turn, or finds the running or answered one its key names.
   * `order`: the ask's place among its front end's asks to this room; it is
   * admitted once the ask before it reached the room (AskLine).
   * `live`: the caller follows the turn as it happens, so the model streams;
   * a retry that joins a turn asked for whole gets its text in one piece.
   */
  async open(req: MessageRequest, live: boolean, claim?: string, traceparent?: string, order?: AskTicket): Promise<OpenedTurn> {
    // An ask that follows another from the same front end joins the line after it.
    if (!order) return this.openInLine(req, live, claim, traceparent);
    await this.work.line.behind(order);
    try {
      return await this.openInLine(req, live, claim, traceparent);
    } finally {
      this.work.line.reached(order);
    }
  }

  private async openInLine(req: MessageRequest, live: boolean, claim?: string, traceparent?: string): Promise<OpenedTurn> {
    const { work } = this;
    const { ledger } = work.room;
    // The budget is checked once a turn, just before its model is asked (one round trip to the
    // person's usage object). A turn that will start at once is checked here, first: the check may
    // be an RPC, during which another request may come in, and from the key's lookup to the turn's
    // admission nothing may wait on I/O, so a retry with the same key finds this turn and joins it.
    // A turn that will wait is checked when its place comes up, against what the turns ahead spent.
    const checkedNow = work.queue.idle;
    const refused = checkedNow ? await work.room.overBudget?.(req.userId || null) : null;
    const key = req.idempotencyKey ?? null;
    if (key) {
      const stored = () => {
        const answer = ledger.answered("message", key);
        return answer ? withHistory(answer, ledger) : null;
      };
      const running = work.live.find(replayKey("message", key));
      // A second delivery of the event (another claimant) is refused here, before it follows anything.
      if (running) {
        followClaim(ledger.claimantOf("message", key), claim);
        return { answer: work.replays.find(replayKey("message", key), stored) as Promise<Outcome>, channel: running, joined: true };
      }
      const replay = await work.replays.find(replayKey("message", key), stored);
      if (replay) {
        followClaim(ledger.claimantOf("message", key), claim);
        return { answer: Promise.resolve(replay), channel: null, joined: true };
      }
    }
    const redact = work.deps().redact;
    // Past a budget: refused before anything is written or asked (a stored answer is still given again above).
    if (refused) throw refused;
    // Begun at admission, so a turn's time waiting behind others is inside its span.
    const span = agentSpan(work.tracing, work.room.roomId, parseTraceparent(traceparent));
    const place = work.queue.admit();
    // Another turn came in during the check: this one waits behind it, so it is checked again when it starts.
    const checkAtStart = !checkedNow || place.ahead > 0;
    const turn = work.accept(place, () =>
      ledger.accept({
        kind: "message", idemKey: key, userId: req.userId || null, userName: req.userName || null, question: redact(req.text), receivedAt: Date.now(), claimant: (key && claim) || null,
        // Only a keyed turn can be confirmed, so only its answer is kept for delivery.
        // The turn's traceparent goes with it, so whichever bot delivers the answer records its span in this trace.
        deliver: key && req.deliver ? deliverColumn(req.deliver, span.traceparent) : null,
      }),
    );
    const epoch = work.epoch;
    const channel = new TurnChannel();
    // Behind other work: the turn's first event says how much, so the asker is told their place.
    if (place.ahead > 0) channel.publish({ event: "queued", data: { ahead: place.ahead } });
    if (place.ahead > 0) span.set({ "duet.turn.queued_behind": place.ahead });
    const answer = work.start(turn, place, (t) => this.answer(t, epoch, channel, live, checkAtStart, span));
    return { answer: key ? this.track(key, channel, answer) : answer, channel, joined: false };
  }

  /** Keeps a keyed turn findable while it runs (a stop, a retry that follows it) and its answer for replays. */
  track(key: string, channel: TurnChannel, answer: Promise<Outcome>): Promise<Outcome> {
    this.work.live.track(replayKey("message", key), channel, answer);
    return this.work.replays.track(replayKey("message", key), answer);
  }

  /** Answers an accepted turn in its place. `checkBudget`: the turn was not checked against the budgets when it came in (it waited, or was resumed). */
  answer(turn: LedgerTurn, epoch: number, channel: TurnChannel, live: boolean, checkBudget: boolean, span: Span): Promise<Outcome> {
    const { work } = this;
    const { ledger, control } = work.room;
    const current = () => epoch === work.epoch;
    return work.live.run(String(turn.seq), channel, async (stop, onEvent) => {
      try {
        await work.room.ensureRegistered();
        // A turn that waited behind others may find the budget used up by them: it does not start.
        const refused = checkBudget ? await work.room.overBudget?.(turn.userId) : null;
        if (refused) throw refused;
        control.noticeExpired();
        const propose = control.policy.get() === "approve" ? (cmds: string[]) => control.propose(cmds, turn.userId) : undefined;
        const deps = work.deps(turn.userId);
        const steps = runTurn(
          { ...deps, stillCurrent: current, stop, onEvent, propose, live, span },
          { question: turn.question, asker: speakerOf(turn), receivedAt: turn.receivedAt, progress: turn.progress, recent: ledger.recentTurns(CONTEXT_TURNS) },
        );
        let step = await steps.next();
        // Each step is the turn's progress before its next command: stored, so a restart knows where it was.
        for (; !step.done; step = await steps.next()) ledger.markStarted(turn, step.value);
        const { answer, modelText } = step.value;
        if (!current()) throw new DuetError("not_found", DELETED);
        const answeredAt = Date.now();
        ledger.answer(turn, answer, modelText, answeredAt, work.room.outbox.takePosted(turn.idemKey));
        // Begun, not awaited: the summary is written outside the queue, so the next turn never waits for it.
        work.room.answered?.();
        // Before the answer goes out, so the person's next ask finds it counted; a failure is logged, the answer kept.
        await work.room.counted?.(turn.userId, answer.usage, answeredAt).catch((err) => console.error("a turn's usage could not be counted toward its person's budget", err));
        if (turn.deliver) work.room.outbox.answered().catch((err) => console.error("the room's delivery check could not be armed", err));
        // One audit row for all of the turn's commands (none when it ran none); a command killed by a stop says who stopped it.
        control.recordRuns("auto", answer.runs, turn.userId, killedBy(stop, answer.runs, deps.redact));
        span.set({ "duet.turn.commands": answer.runs.length, "duet.turn.stopped": answer.stopped === true });
        return withHistory(answer, ledger);
      } catch (err) {
        if (current()) ledger.drop(turn);
        span.fail(errorName(err));
        throw err;
      } finally {
        span.end();
        work.tracing.flush();
      }
    });
  }
}
