import { DuetError, type DecisionRequest, type ExecRequest, type MessageRequest, type RunResult } from "@duet/shared";
import type { DecisionNote, RoomControl } from "../control/room-control.ts";
import { LiveTurns, storedStream, streamOf, type LiveOutcome } from "../live/live-turns.ts";
import { TurnStopped } from "../live/stop.ts";
import { TurnChannel } from "../live/turn-channel.ts";
import { execOutcome, unknownRunOutcome } from "./direct-run.ts";
import { guard, ok, type Outcome } from "./outcome.ts";
import { Replays } from "./replay.ts";
import type { RoomTree } from "./room-tree.ts";
import { runCommand, runTurn, UNKNOWN_OUTCOME, type TurnDeps } from "./turn.ts";
import type { LedgerTurn, StoredAnswer, TurnKind, TurnLedger } from "./turn-ledger.ts";
import { TurnQueue } from "./turn-queue.ts";

/**
 * How often a busy room's alarm fires. An alarm keeps the object in memory
 * while a turn nobody awaits runs, and after an eviction it wakes a fresh
 * instance that resumes the turns left pending (Cloudflare evicts an object
 * after about 70 s without an event).
 */
export const KEEP_AWAKE_MS = 30_000;

/** What the turns of one room need from the room object. */
export interface RoomParts {
  roomId: string;
  ledger: TurnLedger;
  tree: RoomTree;
  /** The run policy (read per turn), the approvals and the audit trail. */
  control: RoomControl;
  /** Built per turn from the validated config; throws a DuetError or ConfigError when it cannot be. */
  deps: () => TurnDeps;
  /** Arms the room's alarm (a Durable Object alarm: no row is written). */
  setAlarm: (at: number) => Promise<void>;
}

const DELETED = "this room was deleted while the message was being answered";

/**
 * A room's turns: admission, the one-at-a-time queue, the ledger row of each
 * turn, idempotent replays and the recovery of turns an eviction cut off.
 */
export class RoomTurns {
  private readonly queue = new TurnQueue();
  private readonly replays = new Replays();
  private readonly live = new LiveTurns();
  /** Bumped by a clean-up: a turn that started before a DELETE must not write into the clean room. */
  private epoch = 0;
  /** Turns queued or running in this instance; the alarm is re-armed while there are any. */
  private busy = 0;
  private awakeUntil = 0;
  private recovered = false;

  constructor(private readonly room: RoomParts) {}

  /**
   * Resumes the turns a previous instance accepted and never answered
   * (eviction, redeploy, crash), in arrival order, ahead of any new turn. A
   * retry with the same key then joins the resumed turn. A keyed direct run
   * that was cut off may have run, so it is answered as unknown, never re-run.
   * Runs once per instance, before its first turn (onStart).
   */
  recover(): void {
    if (this.recovered) return;
    this.recovered = true;
    const { ledger, roomId } = this.room;
    for (const turn of ledger.pending("message")) {
      try {
        const epoch = this.epoch;
        const channel = new TurnChannel();
        const answer = this.start(() => turn, (t) => this.answerTurn(t, epoch, channel, false));
        if (turn.idemKey) this.trackMessage(turn.idemKey, channel, answer);
      } catch (err) {
        // The queue is full: the turn stays pending and is resumed by the next instance.
        console.error("a pending turn could not be resumed", err);
      }
    }
    for (const run of ledger.pending("exec")) ledger.finishRun(run, unknownRunOutcome(roomId, run.question));
    const unknown = (cmd: string): RunResult => ({ cmd, exitCode: null, stdout: "", stderr: "", truncated: false, durationMs: 0, error: UNKNOWN_OUTCOME });
    this.room.control.recoverCutOff(unknown, (note) => this.remember(note));
  }

  async message(req: MessageRequest): Promise<Outcome> {
    return (await this.open(req, false)).answer;
  }

  /**
   * The same turn, live: the SSE stream of its events. A retry of a running
   * turn follows it from its first event; a retry of an answered one gets its
   * stored answer as a lone `done`. A refusal (a full room) stays JSON.
   */
  async messageStream(req: MessageRequest): Promise<LiveOutcome> {
    const { answer, channel, joined } = await this.open(req, true);
    if (channel) return { status: 200, body: null, stream: streamOf(channel, joined) };
    const stored = await answer;
    return stored.status === 200 ? { status: 200, body: stored.body, stream: storedStream(stored.body) } : stored;
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
  private async open(req: MessageRequest, live: boolean): Promise<{ answer: Promise<Outcome>; channel: TurnChannel | null; joined: boolean }> {
    const { ledger } = this.room;
    const key = req.idempotencyKey ?? null;
    if (key) {
      const stored = () => {
        const answer = ledger.answered("message", key);
        return answer ? withHistory(answer, ledger) : null;
      };
      const running = this.live.find(replayKey("message", key));
      if (running) return { answer: this.replays.find(replayKey("message", key), stored) as Promise<Outcome>, channel: running, joined: true };
      const replay = await this.replays.find(replayKey("message", key), stored);
      if (replay) return { answer: Promise.resolve(replay), channel: null, joined: true };
    }
    const redact = this.room.deps().redact;
    const accept = () =>
      ledger.accept({ kind: "message", idemKey: key, userId: req.userId || null, question: redact(req.text), receivedAt: Date.now() });
    const epoch = this.epoch;
    const channel = new TurnChannel();
    const answer = this.start(accept, (turn) => this.answerTurn(turn, epoch, channel, live));
    return { answer: key ? this.trackMessage(key, channel, answer) : answer, channel, joined: false };
  }

  private trackMessage(key: string, channel: TurnChannel, answer: Promise<Outcome>): Promise<Outcome> {
    this.live.track(replayKey("message", key), channel, answer);
    return this.replays.track(replayKey("message", key), answer);
  }

  private answerTurn(turn: LedgerTurn, epoch: number, channel: TurnChannel, live: boolean): Promise<Outcome> {
    const { ledger, tree, control } = this.room;
    const current = () => epoch === this.epoch;
    return this.live.run(String(turn.seq), channel, async (stop, onEvent) => {
      try {
        await tree.ensureRegistered();
        control.noticeExpired();
        const propose = control.policy.get() === "approve" ? (cmds: string[]) => control.propose(cmds, turn.userId) : undefined;
        const deps = this.room.deps();
        const { answer, modelText } = await runTurn({ ...deps, stillCurrent: current, stop, onEvent, propose, live }, turn);
        if (!current()) throw new DuetError("not_found", DELETED);
        ledger.answer(turn, answer, modelText);
        // One audit row for all of the turn's commands (none when it ran none); a command killed by a stop says who stopped it.
        control.recordRuns("auto", answer.runs, turn.userId, killedBy(stop, answer.runs, deps.redact));
        return withHistory(answer, ledger);
      } catch (err) {
        if (current()) ledger.drop(turn);
        throw err;
      }
    });
  }

  /** A direct run. Only a keyed run has a row: without a key there is nothing to replay or protect. */
  async exec(req: ExecRequest): Promise<Outcome> {
    const { ledger, roomId } = this.room;
    const key = req.idempotencyKey ?? null;
    if (key) {
      const replay = await this.replays.find(replayKey("exec", key), () => ledger.answered<Outcome>("exec", key));
      if (replay) return replay;
    }
    const deps = this.room.deps();
    const accept = () =>
      key ? ledger.accept({ kind: "exec", idemKey: key, userId: req.userId || null, question: deps.redact(req.cmd), receivedAt: Date.now() }) : null;
    const answer = this.start(accept, async (turn) => {
      try {
        await this.room.tree.ensureRegistered();
        if (!deps.executor) throw new DuetError("sandbox_error", deps.executorProblem ?? "no sandbox is configured", { status: 503 });
        // The room's stop kills a direct run as it kills a turn's command.
        const { result: run, stopped } = await this.live.runStoppable(`exec:${key ?? "unkeyed"}`, (stop) => runCommand(deps, req.cmd, stop));
        // The executor failed to answer: nothing is stored, so a retry may run it.
        if (run.error !== undefined && !stopped) throw new DuetError("sandbox_error", run.error);
        const outcome = execOutcome(roomId, run);
        if (turn) ledger.finishRun(turn, outcome);
        this.room.control.recordRuns("direct", [run], req.userId || null, stopped ? { index: 0, ...(stopped.by ? { by: stopped.by } : {}) } : undefined);
        return outcome;
      } catch (err) {
        if (turn) ledger.drop(turn);
        throw err;
      }
    });
    return key ? this.replays.track(replayKey("exec", key), answer) : answer;
  }

  /**
   * A person ran or skipped a command proposed under `approve`. A run waits
   * its turn in the room's queue (never beside a running turn, never in a
   * room deleted meanwhile); either way the outcome joins the history.
   */
  async decide(approvalId: string, req: DecisionRequest): Promise<Outcome> {
    const { control, ledger } = this.room;
    const deps = this.room.deps();
    const epoch = this.epoch;
    const ensureCurrent = () => {
      if (epoch !== this.epoch) throw new DuetError("not_found", "this room was deleted while the command waited or ran");
    };
    // A decision's place in the history is taken when it is queued, ahead of turns accepted after it.
    let seq: number | undefined;
    const decided = await control.decide(approvalId, req, {
      enqueue: (work) => {
        const task = this.queued(() => {
          ensureCurrent();
          return work();
        });
        seq = ledger.reserveSeq();
        return task;
      },
      // A stop of the room kills it as it would a turn's command. Nothing is written into a room deleted while it ran.
      run: async (cmd) => {
        const { result: run, stopped } = await this.live.runStoppable(`decision:${approvalId}`, (stop) => runCommand(deps, cmd, stop));
        ensureCurrent();
        return stopped ? { run, stopped: stopped.by ? { by: stopped.by } : {} } : { run };
      },
      remember: (note) => this.remember(note, seq),
    });
    return ok(decided);
  }

  /** A decision's line in the history, at `seq` when its place was taken earlier. */
  private remember(note: DecisionNote, seq?: number): void {
    const answer = { reply: note.reply, explanation: "", runs: note.runs };
    this.room.ledger.note({ userId: note.userId, question: note.question, receivedAt: note.at }, answer, note.at, seq);
  }

  /**
   * Queues `work`. Admission comes first (the queue throws when the room is
   * full), so a refused turn leaves no row; `accept` then writes the turn's
   * row before the work can start (on a later microtask at the earliest).
   */
  private start<T extends LedgerTurn | null>(accept: () => T, work: (turn: T) => Promise<Outcome>): Promise<Outcome> {
    let turn: T;
    const task = this.queued(() => work(turn));
    turn = accept();
    return guard(() => task);
  }

  /** Runs `work` in the room's queue and keeps the room awake meanwhile; throws at once (room_busy) when the queue is full. */
  private queued<T>(work: () => Promise<T>): Promise<T> {
    const task = this.queue.run(work);
    this.busy++;
    this.keepAwake();
    void task.finally(() => this.busy--).catch(() => undefined);
    return task;
  }

  /** The room was cleaned: turns still running must not write into it. */
  reset(): void {
    this.epoch++;
    this.room.ledger.wipe();
  }

  /** After the room's alarm fired: arm the next one while turns remain. */
  afterAlarm(): void {
    this.awakeUntil = 0;
    if (this.busy > 0) this.keepAwake();
  }

  /** One alarm write per KEEP_AWAKE_MS at most, however many turns arrive. */
  private keepAwake(): void {
    const now = Date.now();
    if (this.awakeUntil > now) return;
    this.awakeUntil = now + KEEP_AWAKE_MS;
    this.room.setAlarm(this.awakeUntil).catch((err) => console.error("the room's alarm could not be set", err));
  }
}

const replayKey = (kind: TurnKind, key: string) => `${kind}:${key}`;

/**
 * A message turn's answer with the room's history. Its JSON is written from
 * the answer's own and the history's kept JSON (the same text as serialising
 * the body), so the 50 messages are not serialised again for every answer.
 */
function withHistory(answer: StoredAnswer, ledger: TurnLedger): Outcome {
  const own = JSON.stringify(answer);
  return { status: 200, body: { ...answer, messages: ledger.history() }, bodyJson: `${own.slice(0, -1)},"messages":${ledger.historyJson()}}` };
}

/** The command a stop killed (the turn's last, ended with the stop's words), and who stopped it. */
function killedBy(stop: AbortSignal, runs: RunResult[], redact: (text: string) => string): { index: number; by?: string } | undefined {
  const last = runs.length - 1;
  if (!(stop.reason instanceof TurnStopped) || last < 0 || runs[last].error !== redact(stop.reason.message)) return undefined;
  return { index: last, ...(stop.reason.by ? { by: stop.reason.by } : {}) };
}
