import { Agent } from "agents";
import type { DecisionRequest, ExecRequest, MessageRequest, PolicyRequest, StopRequest } from "@duet/shared";
import { loadConfig } from "../config.ts";
import { RoomControl } from "../control/room-control.ts";
import type { Env } from "../env.ts";
import { createLanguageModel } from "../model/language-model.ts";
import { redactor } from "../redaction.ts";
import { createExecutor } from "../sandbox/executor.ts";
import { SandboxError } from "../sandbox/types.ts";
import { WarmTracker } from "../sandbox/warm-tracker.ts";
import type { LiveOutcome } from "../live/live-turns.ts";
import { guard, ok, outcomeOf, type Outcome } from "./outcome.ts";
import { RoomTree } from "./room-tree.ts";
import { RoomTurns } from "./room-turns.ts";
import { meterSql } from "./sql-meter.ts";
import type { TurnDeps } from "./turn.ts";
import { TurnLedger, type AnsweredTurn } from "./turn-ledger.ts";

/**
 * One room (its name is its room id): history, turns, sandbox and the rooms
 * under it. This class is the RPC surface the Worker calls; each method returns
 * an Outcome rather than throwing, so errors cross RPC as data with their
 * status intact. The turns live in RoomTurns, their rows in TurnLedger, the
 * room tree in RoomTree.
 */
export class DuetAgent extends Agent<Env> {
  /** Installed before the first statement of ours, so it sees every write, the SDK's included. */
  private readonly meter = meterSql(this.ctx.storage);
  private parts?: { ledger: TurnLedger; tree: RoomTree; turns: RoomTurns; control: RoomControl };
  private executorCache?: { executor: WarmTracker | null; problem?: string };

  private get room() {
    if (!this.parts) {
      const ledger = new TurnLedger(this.ctx.storage);
      const tree = new RoomTree(this.ctx.storage, this.name, (parent) => this.env.DUET_AGENT.getByName(parent));
      const control = new RoomControl(this.ctx.storage, loadConfig(this.env));
      const turns = new RoomTurns({
        roomId: this.name,
        ledger,
        tree,
        control,
        deps: () => this.turnDeps(),
        setAlarm: (at) => this.ctx.storage.setAlarm(at),
      });
      this.parts = { ledger, tree, turns, control };
    }
    return this.parts;
  }

  /**
   * Every wake, whatever woke it: turns a previous instance accepted and never
   * answered are resumed here, ahead of the request that woke the room. When
   * nobody sends one, the room's alarm (armed while turns run) is what wakes it.
   */
  async onStart(): Promise<void> {
    try {
      this.room.turns.recover();
    } catch (err) {
      console.error("DuetAgent could not resume interrupted turns on wake", err);
    }
  }

  /**
   * The SDK's alarm work first (its own jobs; it then clears the alarm when it
   * has none), then ours: a room with turns still running arms the next alarm.
   */
  async alarm(): Promise<void> {
    await super.alarm();
    this.room.turns.afterAlarm();
  }

  async message(req: MessageRequest): Promise<Outcome> {
    return this.started(() => this.room.turns.message(req));
  }

  /** A message answered live: the SSE stream of the turn, or a JSON Outcome when refused. */
  async messageStream(req: MessageRequest): Promise<LiveOutcome> {
    try {
      await this.__unsafe_ensureInitialized();
      return await this.room.turns.messageStream(req);
    } catch (err) {
      return outcomeOf(err);
    }
  }

  /** Stops the room's running turn: `{stopped}` says whether one was running. */
  async stop(req: StopRequest): Promise<Outcome> {
    return guard(async () => ok({ stopped: this.room.turns.stop(req.userId || undefined) }));
  }

  async exec(req: ExecRequest): Promise<Outcome> {
    return this.started(() => this.room.turns.exec(req));
  }

  async policy(): Promise<Outcome> {
    return guard(async () => ok(this.room.control.runPolicy()));
  }

  async setPolicy(req: PolicyRequest): Promise<Outcome> {
    return guard(async () => ok(this.room.control.setPolicy(req)));
  }

  /** Runs or skips a command proposed under `approve`. */
  async decide(approvalId: string, req: DecisionRequest): Promise<Outcome> {
    return this.started(() => this.room.turns.decide(approvalId, req));
  }

  /** Read after the room's recovery, so an approved run cut off by a restart is listed. */
  async audit(): Promise<Outcome> {
    return this.started(() => ok(this.room.control.auditEntries()));
  }

  /** Runs `fn` once the room has started (turns a dead instance left are resumed first), as an Outcome. */
  private started(fn: () => Outcome | Promise<Outcome>): Promise<Outcome> {
    return guard(async () => {
      await this.__unsafe_ensureInitialized();
      return fn();
    });
  }

  async messages(): Promise<Outcome> {
    return guard(async () => ok({ messages: this.room.ledger.history() }));
  }

  /** The newest answered turns with the model's own text and each command's result (for building model context). */
  async recentTurns(limit?: number): Promise<AnsweredTurn[]> {
    return this.room.ledger.recentTurns(limit);
  }

  /** Storage figures for operators and benchmarks: what this room holds and what it has written since it woke. */
  async stats(): Promise<Outcome> {
    return guard(async () =>
      ok({
        messages: this.room.ledger.messageCount(),
        databaseBytes: this.ctx.storage.sql.databaseSize,
        rowsWrittenSinceStart: this.meter.rowsWritten,
        bytesBoundSinceStart: this.meter.bytesBound,
      }),
    );
  }

  /**
   * Empties this room and every room recorded under it; idempotent. A child that
   * could not be cleaned stays listed, so the next DELETE tries it again.
   * `resetBy`: the person who asked, if one did (see RoomControl.reset).
   */
  async cleanup(resetBy?: string): Promise<Outcome> {
    return guard(async () => {
      const { tree, turns, control } = this.room;
      turns.reset();
      control.reset(resetBy);
      const errors = await tree.cleanChildren(async (child) => {
        const out = await this.env.DUET_AGENT.getByName(child).cleanup();
        return ((out as Outcome).body as { errors?: string[] }).errors ?? [];
      });
      tree.forgetParent();
      try {
        const { executor, problem } = this.executor();
        if (executor) await executor.destroy(this.name);
        else if (problem) errors.push(`sandbox: ${problem}`);
      } catch (err) {
        errors.push(`sandbox: ${(err as Error).message}`);
      }
      return errors.length ? { status: 207, body: { cleaned: true, roomId: this.name, errors } } : ok({ cleaned: true, roomId: this.name });
    });
  }

  /** A room under this one (a thread under its channel, a channel under its workspace) announces itself. */
  async registerChild(child: string): Promise<void> {
    await this.room.tree.addChild(child);
  }

  private executor(): { executor: WarmTracker | null; problem?: string } {
    if (!this.executorCache) {
      try {
        this.executorCache = { executor: new WarmTracker(createExecutor(loadConfig(this.env), this.env)) };
      } catch (err) {
        if (!(err instanceof SandboxError)) throw err;
        this.executorCache = { executor: null, problem: err.message };
      }
    }
    return this.executorCache;
  }

  private turnDeps(): TurnDeps {
    const config = loadConfig(this.env);
    const { executor, problem } = this.executor();
    const roomId = this.name;
    return {
      roomId,
      config,
      ledger: this.room.ledger,
      model: () => createLanguageModel(config, this.env),
      executor,
      executorProblem: problem,
      redact: redactor(config),
      warmSandbox: () => void executor?.warm(roomId),
    };
  }
}
