import { Agent, getAgentByName } from "agents";
import { DuetError, parentRoomId, type DuetMessage, type ExecRequest, type MessageRequest } from "@duet/shared";
import { ConfigError, loadConfig, type WorkerConfig } from "../config.ts";
import type { Env } from "../env.ts";
import { createModelProvider } from "../model/provider.ts";
import { redactor } from "../redaction.ts";
import { createExecutor, SandboxError } from "../sandbox/executor.ts";
import { WarmTracker } from "../sandbox/warm-tracker.ts";
import { cleanChildren } from "./child-cleanup.ts";
import { execKey, execOutcome, unknownRunOutcome } from "./direct-run.ts";
import { RoomStore, type PendingTurn, type StoredAnswer } from "./room-store.ts";
import { meterSql } from "./sql-meter.ts";
import { runCommand, runTurn, type TurnDeps } from "./turn.ts";
import { TurnQueue } from "./turn-queue.ts";

/** An RPC answer: the HTTP status and JSON body the Worker should send. */
export interface Outcome {
  status: number;
  body: unknown;
}

const REGISTERED_KEY = "registered_with_parent";

/**
 * One room: its history, its turn queue and its sandbox. The Worker calls these
 * methods over RPC; each returns an Outcome rather than throwing, so errors
 * cross the RPC boundary as data with their status intact.
 */
export class DuetAgent extends Agent<Env> {
  /** Installed before the first statement of ours, so it sees every write. */
  private readonly meter = meterSql(this.ctx.storage);
  private storeCache?: RoomStore;
  private readonly turns = new TurnQueue();
  /** Turns in flight by idempotency key, so concurrent duplicates share one answer. */
  private readonly inflight = new Map<string, Promise<Outcome>>();
  /** Bumped by cleanup: a turn that started before a DELETE must not write into the clean room. */
  private epoch = 0;
  /** Turn ids this instance has queued; a pending row not in here was orphaned by a restart. */
  private readonly active = new Set<string>();
  private recovered = false;

  private get store(): RoomStore {
    this.storeCache ??= new RoomStore(this.ctx.storage);
    return this.storeCache;
  }

  /**
   * On the first call after a wake, pending rows mean the previous instance
   * died mid-turn (eviction, redeploy, crash). They are resumed first, in
   * arrival order, ahead of the request that woke the room; a retry with the
   * same idempotency key then shares the resumed turn instead of starting
   * another, and nothing can overtake an orphan. The bots retry with the same
   * key, so an interrupted room is woken in practice.
   */
  private resumeOrphans(roomId: string): void {
    if (this.recovered) return;
    this.recovered = true;
    for (const turn of this.store.pendingTurns()) {
      if (this.active.has(turn.id)) continue;
      const outcome = this.startTurn(roomId, turn, false);
      if (turn.idemKey) this.trackInflight(turn.idemKey, outcome);
      void outcome.catch(() => undefined);
    }
    for (const run of this.store.pendingTurns("exec")) {
      if (!this.active.has(run.id)) this.store.finishRun(run.id, unknownRunOutcome(roomId, run.text));
    }
  }

  /**
   * Every wake, whatever woke it. What matters is the keep-alive alarm that a
   * queued turn holds (see enqueue): when the instance was evicted or crashed
   * mid-turn, that alarm wakes a fresh one, which resumes the turn here with no
   * request from anyone. The object's name is its room id (getAgentByName).
   */
  async onStart(): Promise<void> {
    try {
      this.resumeOrphans(this.name);
    } catch (err) {
      console.error("DuetAgent could not resume interrupted turns on wake", err);
    }
  }

  async message(roomId: string, req: MessageRequest): Promise<Outcome> {
    return guard(async () => {
      this.resumeOrphans(roomId);
      const key = req.idempotencyKey ?? null;
      if (key) {
        const done = this.store.answered(key, Date.now());
        if (done) return this.answerOf({ ...done, replayed: true });
        // A duplicate that joins a turn in flight gets the same answer, marked as not its own.
        const running = this.inflight.get(key);
        if (running) return markReplayed(await running);
      }
      const config = this.config();
      const pending = key ? this.store.pendingByKey(key) : null;
      const turn: PendingTurn = pending ?? {
        id: crypto.randomUUID(),
        idemKey: key,
        userId: req.userId || null,
        text: redactor(config)(req.text),
        receivedAt: Date.now(),
        started: null,
      };
      const promise = this.startTurn(roomId, turn, !pending);
      if (key) this.trackInflight(key, promise);
      return promise;
    });
  }

  private trackInflight(key: string, promise: Promise<Outcome>): void {
    this.inflight.set(key, promise);
    void promise.finally(() => this.inflight.delete(key));
  }

  /** Queues a new turn, or resumes a pending one left by an earlier instance. */
  private startTurn(roomId: string, turn: PendingTurn, isNew: boolean): Promise<Outcome> {
    const epoch = this.epoch;
    return this.enqueue(turn, isNew ? () => this.store.recordPending(turn) : null, async () => {
      try {
        await this.registerWithParent(roomId);
        const history = this.store.history();
        const answer = await runTurn({ ...this.turnDeps(roomId), stillCurrent: () => epoch === this.epoch }, turn, history);
        if (epoch !== this.epoch) throw new DuetError("not_found", "this room was deleted while the message was being answered");
        const userMsg: DuetMessage = { role: "user", ...(turn.userId ? { userId: turn.userId } : {}), text: turn.text, ts: turn.receivedAt };
        const agentMsg: DuetMessage = { role: "agent", text: answer.reply, ts: Date.now() };
        this.store.commitTurn(turn, userMsg, agentMsg, answer, Date.now());
        return this.answerOf(answer);
      } catch (err) {
        if (epoch === this.epoch) this.store.dropTurn(turn.id);
        throw err;
      }
    });
  }

  /**
   * Runs `work` in the room's turn queue. Admission comes first (the queue
   * throws when the room is full), so a refused turn leaves no row; `record`
   * then writes the pending row before the work can start (it runs on a later
   * microtask at the earliest), so an accepted turn survives an eviction.
   * While work runs, the SDK's keep-alive alarm stays armed: it keeps the
   * object in memory for turns nobody awaits, and after an eviction it is what
   * wakes a new instance to resume them (onStart).
   */
  private enqueue(turn: PendingTurn, record: (() => void) | null, work: () => Promise<Outcome>): Promise<Outcome> {
    const task = this.turns.run(() => this.keepAliveWhile(work));
    record?.();
    this.active.add(turn.id);
    void task.finally(() => this.active.delete(turn.id)).catch(() => undefined);
    return guard(() => task);
  }

  async exec(roomId: string, req: ExecRequest): Promise<Outcome> {
    return guard(async () => {
      this.resumeOrphans(roomId);
      const key = req.idempotencyKey ? execKey(req.idempotencyKey) : null;
      if (key) {
        const done = this.store.answered<Outcome>(key, Date.now(), "exec");
        if (done) return markReplayed(done);
        const running = this.inflight.get(key);
        if (running) return markReplayed(await running);
      }
      const turn: PendingTurn = { id: crypto.randomUUID(), idemKey: key, userId: req.userId || null, text: req.cmd, receivedAt: Date.now(), started: null };
      const promise = this.runDirect(roomId, turn);
      if (key) this.trackInflight(key, promise);
      return promise;
    });
  }

  private runDirect(roomId: string, turn: PendingTurn): Promise<Outcome> {
    // Only keyed runs are recorded: without a key there is nothing to replay or to protect.
    const record = turn.idemKey ? () => this.store.recordPending(turn, "exec") : null;
    return this.enqueue(turn, record, async () => {
      try {
        await this.registerWithParent(roomId);
        const deps = this.turnDeps(roomId);
        if (!deps.executor) throw new DuetError("sandbox_error", deps.executorProblem ?? "no sandbox is configured", { status: 503 });
        const run = await runCommand(deps, turn.text);
        // The executor failed to answer: nothing is stored, so a retry may run it.
        if (run.error !== undefined) throw new DuetError("sandbox_error", run.error);
        const outcome = execOutcome(roomId, run);
        if (turn.idemKey) this.store.finishRun(turn.id, outcome);
        return outcome;
      } catch (err) {
        if (turn.idemKey) this.store.dropTurn(turn.id);
        throw err;
      }
    });
  }

  async messages(): Promise<Outcome> {
    return { status: 200, body: { messages: this.store.history() } };
  }

  /** Storage figures for operators and benchmarks: what this room holds and what it has written since it woke. */
  async stats(): Promise<Outcome> {
    return {
      status: 200,
      body: {
        messages: this.store.messageCount(),
        databaseBytes: this.ctx.storage.sql.databaseSize,
        rowsWrittenSinceStart: this.meter.rowsWritten,
        bytesBoundSinceStart: this.meter.bytesBound,
      },
    };
  }

  /**
   * Empties this room and every room recorded under it; idempotent. A child that
   * could not be cleaned stays listed, so the next DELETE tries it again.
   */
  async cleanup(roomId: string): Promise<Outcome> {
    const errors: string[] = [];
    this.epoch++;
    const children = this.store.children();
    const failed = await cleanChildren(children, async (child) => {
      const stub = await getAgentByName(this.env.DUET_AGENT, child);
      const out = await stub.cleanup(child);
      const childErrors = ((out as Outcome).body as { errors?: string[] }).errors ?? [];
      // Off the list as soon as it is clean: an interrupted clean-up resumes with the rest.
      if (!childErrors.length) this.store.removeChild(child);
      return childErrors;
    });
    for (const [child, childErrors] of failed) errors.push(...childErrors.map((e) => `${child}: ${e}`));
    this.store.wipe();
    try {
      const { executor, problem } = this.executor();
      if (executor) await executor.destroy(roomId);
      else if (problem) errors.push(`sandbox: ${problem}`);
    } catch (err) {
      errors.push(`sandbox: ${(err as Error).message}`);
    }
    if (errors.length) return { status: 207, body: { cleaned: true, roomId, errors } };
    return { status: 200, body: { cleaned: true, roomId } };
  }

  /**
   * Called by a room on its first use (a thread by its channel room, a channel by
   * its workspace room), so deleting this room deletes it too. This room then
   * records itself with its own parent: a channel used only through thread rooms
   * must still be found when its workspace goes.
   */
  async registerChild(childRoomId: string): Promise<void> {
    this.store.addChild(childRoomId);
    const self = parentRoomId(childRoomId);
    if (self) await this.registerWithParent(self);
  }

  private async registerWithParent(roomId: string): Promise<void> {
    const parent = parentRoomId(roomId);
    if (!parent || this.store.getMeta(REGISTERED_KEY)) return;
    const stub = await getAgentByName(this.env.DUET_AGENT, parent);
    await stub.registerChild(roomId);
    this.store.setMeta(REGISTERED_KEY, parent);
  }

  private answerOf(answer: StoredAnswer & { replayed?: boolean }): Outcome {
    return { status: 200, body: { ...answer, messages: this.store.history() } };
  }

  private config(): WorkerConfig {
    return loadConfig(this.env);
  }

  private executorCache?: { executor: WarmTracker | null; problem?: string };

  private executor(): { executor: WarmTracker | null; problem?: string } {
    if (!this.executorCache) {
      try {
        this.executorCache = { executor: new WarmTracker(createExecutor(this.config(), this.env)) };
      } catch (err) {
        if (!(err instanceof SandboxError)) throw err;
        this.executorCache = { executor: null, problem: err.message };
      }
    }
    return this.executorCache;
  }

  private turnDeps(roomId: string): TurnDeps {
    const config = this.config();
    const { executor, problem } = this.executor();
    return {
      roomId,
      config,
      store: this.store,
      model: () => createModelProvider(config, this.env),
      executor,
      executorProblem: problem,
      redact: redactor(config),
      warmSandbox: () => void executor?.warm(roomId),
    };
  }
}

function markReplayed(outcome: Outcome): Outcome {
  return outcome.status === 200 ? { status: 200, body: { ...(outcome.body as object), replayed: true } } : outcome;
}

/** Turns thrown DuetErrors (and config errors) into Outcomes; anything else is a logged 500. */
async function guard(fn: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof DuetError) return { status: err.status, body: err.toBody() };
    if (err instanceof ConfigError) return { status: 503, body: { error: err.message, code: "internal" } };
    console.error("DuetAgent error", err);
    return { status: 500, body: { error: "internal error", code: "internal" } };
  }
}
