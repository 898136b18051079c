import { DuetError, errorName, parseTraceparent, type Span, type DecisionRequest, type DecisionResponse, type ExecRequest, type MessageRequest, type RunResult } from "@duet/shared";
import { LiveTurns, storedStream, streamOf, type LiveOutcome, type StreamOptions } from "../live/live-turns.ts";
import { TurnChannel } from "../live/turn-channel.ts";
import { guard, ok, type Outcome } from "../outcome.ts";
import { CONTEXT_TURNS } from "../storage/history-view.ts";
import { deliverColumn, readDeliverColumn } from "../storage/delivery-rows.ts";
import type { LedgerTurn, TurnKind } from "../storage/turn-ledger.ts";
import { execOutcome, storedExecOutcome } from "./direct-run.ts";
import { runNote, skipNote } from "./history-notes.ts";
import { followClaim } from "./claimants.ts";
import { Replays } from "./replay.ts";
import type { RoomParts } from "./room-parts.ts";
import { runCommand, unknownRun, withWorkspaceNote } from "./run-command.ts";
import { runTurn, UNKNOWN_OUTCOME, type TurnDeps } from "./run-turn.ts";
import { speakerOf } from "../model/speakers.ts";
import type { QueuePlace } from "./turn-queue.ts";
import { AwakeQueue } from "./awake-queue.ts";
import { agentSpan, NO_TRACING, type RoomTracing } from "../tracing.ts";
import { killedBy, saveAfter, withHistory } from "./turn-outcomes.ts";

const DELETED = "this room was deleted while the message was being answered";

/**
 * A room's turns: admission, the one-at-a-time queue, every ledger write of a
 * turn (accepted, progress, answered, dropped, and the history lines of
 * decisions and direct runs), idempotent replays and the recovery of turns an
 * eviction cut off. The parts below (runTurn, the room's control) return
 * data; this class writes it.
 */
export class RoomTurns {
  private readonly queue: AwakeQueue;
  private readonly replays = new Replays();
  private readonly live = new LiveTurns();
  /** Bumped by a clean-up: a turn that started before a DELETE must not write into the clean room. */
  private epoch = 0;
  private recovered = false;

  /** Places waiting behind the one running (what a status or a test reads). */
  get waiting(): number {
    return this.queue.waitingCount;
  }

  private get tracing(): RoomTracing {
    return this.room.tracing ?? NO_TRACING;
  }

  constructor(private readonly room: RoomParts) {
    this.queue = new AwakeQueue(room.setAlarm);
  }

  /**
   * Resumes the turns a previous instance accepted and never answered
   * (eviction, redeploy, crash), in arrival order, ahead of any new turn. A
   * retry with the same key then joins the resumed turn. A keyed direct run
   * or an approved command that was cut off may have run, so it is recorded
   * as unknown, never re-run. Runs once per instance, before its first turn
   * (onStart).
   */
  recover(): void {
    if (this.recovered) return;
    this.recovered = true;
    const { ledger, control } = this.room;
    for (const turn of ledger.pending("message")) {
      try {
        const epoch = this.epoch;
        const channel = new TurnChannel();
        // A turn kept for delivery kept its trace: the resumed turn joins it, under the interrupted turn's span; any other starts a trace of its own.
        const parent = turn.deliver ? parseTraceparent(readDeliverColumn(turn.deliver).traceparent) : null;
        const span = agentSpan(this.tracing, this.room.roomId, parent).set({ "duet.turn.resumed": true });
        const answer = this.start(turn, this.queue.admit(), (t) => this.answerTurn(t, epoch, channel, false, true, span));
        if (turn.idemKey) this.trackMessage(turn.idemKey, channel, answer);
      } catch (err) {
        // The queue is full: the turn stays pending and is resumed by the next instance.
        console.error("a pending turn could not be resumed", err);
      }
    }
    for (const turn of ledger.pending("exec")) {
      const run = { ...unknownRun(turn.question, UNKNOWN_OUTCOME), stderr: UNKNOWN_OUTCOME };
      ledger.finishRun(turn, runNote(turn.userId, run, turn.receivedAt));
    }
    this.room.atomically(() => {
      for (const { by, run, at } of control.recoverCutOff((cmd) => unknownRun(cmd, UNKNOWN_OUTCOME))) ledger.note(runNote(by, run, at));
    });
  }

  /** `claim`: the asking delivery's claimant (followClaim); another one's request for a known key is refused. */
  async message(req: MessageRequest, claim?: string, traceparent?: string): Promise<Outcome> {
    return (await this.open(req, false, claim, traceparent)).answer;
  }

  /**
   * The same turn, live: the SSE stream of its events. A retry of a running
   * turn follows it from its first event; a retry of an answered one gets its
   * stored answer as a lone `done`. A refusal (a full room) stays JSON.
   * `accepts` names the optional events the client reads (`queued`).
   */
  async messageStream(req: MessageRequest, accepts: StreamOptions = {}, claim?: string, traceparent?: string): Promise<LiveOutcome> {
    const { answer, channel, joined } = await this.open(req, true, claim, traceparent);
    if (channel) return { status: 200, body: null, stream: streamOf(channel, joined, accepts) };
    const stored = await answer;
    return stored.status === 200 ? { status: 200, body: stored.body, stream: storedStream(stored.body) } : stored;
  }

  /** Whether the message turn under `key` is running here now. */
  running(key: string): boolean {
    return this.live.find(replayKey("message", key)) !== undefined;
  }

  /** Stops the room's running turn, or the approved command running in its place (by `userId`); false when none runs. */
  stop(userId?: string): boolean {
    return this.live.stop(userId);
  }

  /**
   * Starts the turn, or finds the running or answered one its key names.
   * `live`: the caller follows the turn as it happens, so the model streams;
   * a retry that joins a turn asked for whole gets its text in one piece.
   */
  private async open(req: MessageRequest, live: boolean, claim?: string, traceparent?: string): Promise<{ answer: Promise<Outcome>; channel: TurnChannel | null; joined: boolean }> {
    const { ledger } = this.room;
    // The budget is checked once a turn, just before its model is asked (one round trip to the
    // person's usage object). A turn that will start at once is checked here, first: the check may
    // be an RPC, during which another request may come in, and from the key's lookup to the turn's
    // admission nothing may wait on I/O, so a retry with the same key finds this turn and joins it.
    // A turn that will wait is checked when its place comes up, against what the turns ahead spent.
    const checkedNow = this.queue.idle;
    const refused = checkedNow ? await this.room.overBudget?.(req.userId || null) : null;
    const key = req.idempotencyKey ?? null;
    if (key) {
      const stored = () => {
        const answer = ledger.answered("message", key);
        return answer ? withHistory(answer, ledger) : null;
      };
      const running = this.live.find(replayKey("message", key));
      // A second delivery of the event (another claimant) is refused here, before it follows anything.
      if (running) {
        followClaim(ledger.claimantOf("message", key), claim);
        return { answer: this.replays.find(replayKey("message", key), stored) as Promise<Outcome>, channel: running, joined: true };
      }
      const replay = await this.replays.find(replayKey("message", key), stored);
      if (replay) {
        followClaim(ledger.claimantOf("message", key), claim);
        return { answer: Promise.resolve(replay), channel: null, joined: true };
      }
    }
    const redact = this.deps().redact;
    // Past a budget: refused before anything is written or asked (a stored answer is still given again above).
    if (refused) throw refused;
    // Begun at admission, so a turn's time waiting behind others is inside its span.
    const span = agentSpan(this.tracing, this.room.roomId, parseTraceparent(traceparent));
    const place = this.queue.admit();
    // Another turn came in during the check: this one waits behind it, so it is checked again when it starts.
    const checkAtStart = !checkedNow || place.ahead > 0;
    const turn = this.accept(place, () =>
      ledger.accept({
        kind: "message", idemKey: key, userId: req.userId || null, userName: req.userName || null, question: redact(req.text), receivedAt: Date.now(), claimant: (key && claim) || null,
        // Only a keyed turn can be confirmed, so only its answer is kept for delivery.
        // The turn's traceparent goes with it, so whichever bot delivers the answer records its span in this trace.
        deliver: key && req.deliver ? deliverColumn(req.deliver, span.traceparent) : null,
      }),
    );
    const epoch = this.epoch;
    const channel = new TurnChannel();
    // Behind other work: the turn's first event says how much, so the asker is told their place.
    if (place.ahead > 0) channel.publish({ event: "queued", data: { ahead: place.ahead } });
    if (place.ahead > 0) span.set({ "duet.turn.queued_behind": place.ahead });
    const answer = this.start(turn, place, (t) => this.answerTurn(t, epoch, channel, live, checkAtStart, span));
    return { answer: key ? this.trackMessage(key, channel, answer) : answer, channel, joined: false };
  }

  private trackMessage(key: string, channel: TurnChannel, answer: Promise<Outcome>): Promise<Outcome> {
    this.live.track(replayKey("message", key), channel, answer);
    return this.replays.track(replayKey("message", key), answer);
  }

  /** `checkBudget`: the turn was not checked against the budgets when it came in (it waited, or was resumed). */
  private answerTurn(turn: LedgerTurn, epoch: number, channel: TurnChannel, live: boolean, checkBudget: boolean, span: Span): Promise<Outcome> {
    const { ledger, control } = this.room;
    const current = () => epoch === this.epoch;
    return this.live.run(String(turn.seq), channel, async (stop, onEvent) => {
      try {
        await this.room.ensureRegistered();
        // A turn that waited behind others may find the budget used up by them: it does not start.
        const refused = checkBudget ? await this.room.overBudget?.(turn.userId) : null;
        if (refused) throw refused;
        control.noticeExpired();
        const propose = control.policy.get() === "approve" ? (cmds: string[]) => control.propose(cmds, turn.userId) : undefined;
        const deps = this.deps();
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
        ledger.answer(turn, answer, modelText, answeredAt, this.room.outbox.takePosted(turn.idemKey));
        // Before the answer goes out, so the person's next ask finds it counted; a failure is logged, the answer kept.
        await this.room.counted?.(turn.userId, answer.usage, answeredAt).catch((err) => console.error("a turn's usage could not be counted toward its person's budget", err));
        if (turn.deliver) this.room.outbox.answered().catch((err) => console.error("the room's delivery check could not be armed", err));
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
        this.tracing.flush();
      }
    });
  }

  /**
   * A direct run: it joins the history as `Run: <cmd>` with its output. An
   * unkeyed run writes that one row when it ends; a keyed one writes its row
   * when accepted (so a restart knows it may have run) and its answer into
   * the same row: two rows. Each also has its audit row.
   */
  async exec(req: ExecRequest): Promise<Outcome> {
    const { ledger, roomId } = this.room;
    const key = req.idempotencyKey ?? null;
    if (key) {
      const replay = await this.replays.find(replayKey("exec", key), () => {
        const stored = ledger.answered("exec", key);
        return stored ? storedExecOutcome(roomId, stored) : null;
      });
      if (replay) return replay;
    }
    const deps = this.deps();
    const userId = req.userId || null;
    const receivedAt = Date.now();
    const place = this.queue.admit();
    const turn = key ? this.accept(place, () => ledger.accept({ kind: "exec", idemKey: key, userId, question: deps.redact(req.cmd), receivedAt })) : null;
    const epoch = this.epoch;
    const answer = this.start(turn, place, async (t) => {
      try {
        await this.room.ensureRegistered();
        if (!deps.executor) throw new DuetError("sandbox_error", deps.executorProblem ?? "no sandbox is configured", { status: 503 });
        // The room's stop kills a direct run as it kills a turn's command.
        const { result: ran, stopped } = await this.live.runStoppable(`exec:${key ?? "unkeyed"}`, (stop) => runCommand(deps, req.cmd, stop));
        // The executor failed to answer: nothing is stored, so a retry may run it.
        if (ran.error !== undefined && !stopped) throw new DuetError("sandbox_error", ran.error);
        const run = withWorkspaceNote(ran, epoch === this.epoch ? await saveAfter(deps) : null);
        // A room deleted while the command ran starts its new history clean.
        if (epoch === this.epoch) {
          const note = runNote(userId, run, receivedAt);
          if (t) ledger.finishRun(t, note);
          else ledger.note(note);
        }
        this.room.control.recordRuns("direct", [run], userId, stopped ? { index: 0, ...(stopped.by ? { by: stopped.by } : {}) } : undefined);
        return execOutcome(roomId, run);
      } catch (err) {
        if (t && epoch === this.epoch) ledger.drop(t);
        throw err;
      }
    });
    return key ? this.replays.track(replayKey("exec", key), answer) : answer;
  }

  /**
   * A person ran or skipped a command proposed under `approve`. Unknown,
   * expired and decided approvals are refused before anything is queued; the
   * decision is then admitted to the room's queue and taken in the same tick,
   * so a second click is refused at once and nothing runs twice. Both go
   * through the queue: a run must not run beside a turn, and the decision's
   * line in the history takes its place now, ahead of turns accepted after
   * it. A skip answers without waiting for its line.
   */
  async decide(approvalId: string, req: DecisionRequest): Promise<Outcome> {
    const { control, ledger } = this.room;
    const deps = this.deps();
    control.check(approvalId, req);
    const place = this.queue.admit();
    const decided = this.accept(place, () => control.decide(approvalId, req));
    const seq = ledger.reserveSeq();
    const epoch = this.epoch;
    const ensureCurrent = () => {
      if (epoch !== this.epoch) throw new DuetError("not_found", "this room was deleted while the command waited or ran");
    };
    const done = place.run(async (): Promise<RunResult | undefined> => {
      ensureCurrent();
      if (decided.toRun === undefined) {
        ledger.note(skipNote(req.userId, decided.cmd, decided.at), seq);
        return undefined;
      }
      const cmd = decided.toRun;
      // A stop of the room kills it as it would a turn's command. Nothing is written into a room deleted while it ran.
      const { result: ran, stopped } = await this.live.runStoppable(`decision:${approvalId}`, (stop) => runCommand(deps, cmd, stop));
      ensureCurrent();
      const run = withWorkspaceNote(ran, await saveAfter(deps));
      this.room.atomically(() => {
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

  /**
   * The room's deps for one piece of work, with the workspace saved once the
   * room's queue is done: work waiting behind this one will save for both.
   */
  private deps(): TurnDeps {
    const { saves, ...deps } = this.room.deps();
    if (!saves) return deps;
    const saveWorkspace = (changed: boolean): Promise<string | null> => {
      if (changed) saves.markChanged();
      return this.queue.waitingCount > 0 ? Promise.resolve(null) : saves.flush();
    };
    return { ...deps, saveWorkspace };
  }

  /** What `accept` records for work admitted to `place`; the place is given up when that fails. */
  private accept<T>(place: QueuePlace, accept: () => T): T {
    try {
      return accept();
    } catch (err) {
      place.cancel();
      throw err;
    }
  }

  /** Runs `work` for `turn` in its place, as an Outcome. */
  private start<T extends LedgerTurn | null>(turn: T, place: QueuePlace, work: (turn: T) => Promise<Outcome>): Promise<Outcome> {
    return guard(() => place.run(() => work(turn)));
  }

  /** The room was cleaned: turns still running must not write into it. */
  reset(keepUsage = false): void {
    this.epoch++;
    this.room.ledger.wipe(keepUsage);
  }

  /** After the room's alarm fired: arm the next one while turns remain. */
  afterAlarm(): void {
    this.queue.afterAlarm();
  }
}

const replayKey = (kind: TurnKind, key: string) => `${kind}:${key}`;
