import {
  channelOfThread,
  DuetError,
  type ModelRequest,
  type ModelResponse,
  type PolicyRequest,
  type PolicyResponse,
} from "@duet/shared";
import { loadConfig, type WorkerConfig } from "../config.ts";
import { RoomControl } from "../control/room-control.ts";
import { findAttachment } from "../files/attach.ts";
import { describeUpload, UploadLog } from "../files/upload-log.ts";
import { workspaceFiles } from "../files/workspace-files.ts";
import { RoomModelStore } from "../control/room-model.ts";
import { RoomCode } from "./room-code.ts";
import { RoomMemory } from "./room-memory.ts";
import { RoomUsage } from "./room-usage.ts";
import { recallFor } from "../memory/recall.ts";
import { RollingSummary } from "../memory/rolling-summary.ts";
import { SummaryRows } from "../memory/summary-rows.ts";
import type { PersonPeer } from "../usage/person-budget.ts";
import { ChatModels } from "../model/language-model.ts";
import type { ChatModel } from "../model/types.ts";
import { ok, type Outcome } from "../outcome.ts";
import { redactor } from "../redaction.ts";
import { roomTracing } from "../tracing.ts";
import { openExecutorSlot, type ExecutorSlot } from "../sandbox/executor.ts";
import { RoomTools, type ToolServersPeer } from "../tools/room-tools.ts";
import { armAlarmBy } from "../storage/alarm.ts";
import type { WriteMeter } from "../storage/sql-meter.ts";
import { TurnLedger } from "../storage/turn-ledger.ts";
import { RoomTurns } from "../turns/room-turns.ts";
import { Outbox, type FeedPeer } from "../outbox/outbox.ts";
import { Schedules } from "../schedules/schedules.ts";
import { ScheduledRuns } from "./scheduled-runs.ts";
import type { DeliveryPlatform } from "@duet/shared";
import type { RoomDeps } from "../turns/room-parts.ts";
import type { Vars } from "../vars.ts";
import { RoomTree, type Inherited, type RoomPeer } from "./room-tree.ts";
import { isWorkspaceRoom, listRooms, roomSummary } from "../home/room-listing.ts";
import type { KeepAskedResponse, QuotedMessage, RoomListRequest, RoomListResponse, RoomSummary, TakeAskedResponse } from "@duet/shared";
import { AskedRows } from "../storage/asked-rows.ts";

/**
 * The parts of one room, wired together: its ledger, its place in the room
 * tree, its run policy and audit, its turns, its sandbox, the files people
 * shared into it, and the one redactor they all use. Built once per Durable
 * Object instance, on first use.
 */
export class Room {
  readonly ledger: TurnLedger;
  readonly tree: RoomTree;
  readonly control: RoomControl;
  readonly model: RoomModelStore;
  /** The repository linked here, its checkout and its pull request (see room-code.ts). */
  readonly code: RoomCode;
  /** The tool servers of the workspace this room turned on. */
  readonly tools: RoomTools;
  /** The facts pinned here and the ones the model proposed (see room-memory.ts). */
  readonly memory: RoomMemory;
  /** The room's rolling summary of the conversation before the model's window. */
  readonly rollingSummary: RollingSummary;
  /** The messages "Ask Duet" forms are open on here, until they are submitted. */
  private readonly asked: AskedRows;
  readonly turns: RoomTurns;
  readonly uploads: UploadLog;
  readonly outbox: Outbox;
  readonly schedules: ScheduledRuns;
  private readonly scheduleRows: Schedules;
  /** Its model use and what is left of the budgets (see room-usage.ts). */
  readonly usage: RoomUsage;
  private readonly config: WorkerConfig;
  private readonly redact: (text: string) => string;
  private executorSlot?: ExecutorSlot;
  private readonly chatModels: ChatModels;
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly env: Vars,
    readonly roomId: string,
    /** Another room's stub, by id (its parent, its children). */
    private readonly peer: (roomId: string) => RoomPeer,
    /** A platform's delivery feed (outbox/feed-object.ts). */
    feed: (platform: DeliveryPlatform) => FeedPeer,
    /** One person's usage across their workspace's rooms (usage/person-object.ts), by key. */
    person: (key: string) => PersonPeer,
    /** A workspace's tool servers (tools/tool-servers.ts), by workspace. */
    toolServers: (workspace: string) => ToolServersPeer,
    /** Records which room opened a pull request, for GitHub's webhook (github/webhook-index-object.ts); absent without it. */
    pullIndex?: (repo: string, number: number, roomId: string) => Promise<void>,
    /** Keeps the object alive for work that outlasts its request (sending a turn's spans). */
    waitUntil: (p: Promise<unknown>) => void = (p) => void p,
  ) {
    this.config = loadConfig(env);
    this.chatModels = new ChatModels(this.config, env);
    this.redact = redactor(this.config);
    this.ledger = new TurnLedger(storage, this.config.DUET_ROOM_HISTORY_MAX_BYTES);
    this.uploads = new UploadLog(storage);
    this.tree = new RoomTree(storage, roomId, peer);
    // Only a thread room follows its parent's policy; a channel does not follow its workspace room's.
    const inherited = channelOfThread(roomId) ? () => this.tree.inheritedPolicy() : () => null;
    this.control = new RoomControl(storage, this.config, this.redact, inherited);
    this.outbox = new Outbox(storage, roomId, feed, this.config.DUET_DELIVERY_GRACE_MS, this.config.DUET_DELIVERY_LEASE_MS);
    const inheritedModel = channelOfThread(roomId) ? () => this.tree.inheritedModel() : () => null;
    this.model = new RoomModelStore(storage, this.config.models, inheritedModel);
    this.asked = new AskedRows(storage.sql);
    this.rollingSummary = new RollingSummary({
      tokens: this.config.DUET_SUMMARY_TOKENS,
      ledger: this.ledger,
      rows: new SummaryRows(storage.sql),
      model: () => this.chatModel(),
      timeoutMs: this.config.MODEL_TIMEOUT_MS,
      temperature: this.config.MODEL_TEMPERATURE,
      price: (model) => this.config.offered.get(model)?.price,
      redact: this.redact,
      waitUntil,
    });
    this.usage = new RoomUsage(roomId, this.config, { ledger: this.ledger, summary: this.rollingSummary, tree: this.tree, peer }, person);
    this.memory = new RoomMemory(storage, this.control, this.redact, () => Boolean(this.rollingSummary.text()));
    this.tools = new RoomTools(storage, roomId, () => toolServers(this.tools.workspace), this.redact, this.config.DUET_TOOL_TIMEOUT_MS);
    this.code = new RoomCode({
      storage,
      roomId,
      config: this.config,
      tree: this.tree,
      control: this.control,
      outbox: this.outbox,
      ledger: this.ledger,
      redact: this.redact,
      executor: () => this.executor().executor,
      ensureListed: () => this.ensureListed(),
      handDown: (what) => this.handDown(what),
      ask: (req) => this.turns.message(req),
      ...(pullIndex ? { pullIndex } : {}),
    });
    // One exporter for the room's spans: its turns' and its schedules' runs'.
    const tracing = roomTracing(this.config, waitUntil);
    this.turns = new RoomTurns({
      roomId,
      ledger: this.ledger,
      outbox: this.outbox,
      ensureRegistered: () => this.tree.ensureRegistered(),
      control: this.control,
      deps: () => this.turnDeps(),
      atomically: (fn) => storage.transactionSync(fn),
      // Never later than it is armed: the keep-awake alarm must not push a schedule due sooner (an `every 10s`) back to 30 s.
      setAlarm: (at) => armAlarmBy(storage, at),
      overBudget: (userId) => this.usage.overBudget(userId),
      counted: (userId, usage, at) => this.usage.people.counted(userId, usage, at),
      tracing,
      answered: () => this.rollingSummary.afterTurn(),
    });
    const limits = () => ({ minIntervalS: this.config.DUET_SCHEDULE_MIN_INTERVAL_S, perRoom: this.config.DUET_SCHEDULES_PER_ROOM });
    this.scheduleRows = new Schedules(storage.sql, limits);
    this.schedules = new ScheduledRuns({
      storage,
      schedules: this.scheduleRows,
      control: this.control,
      outbox: this.outbox,
      redact: this.redact,
      ask: (req, traceparent) => this.turns.message(req, undefined, traceparent),
      ledger: this.ledger,
      roomId,
      tracing,
    });
  }

  /** The room's schedules, soonest first. */
  listSchedules() {
    return this.scheduleRows.list();
  }

  /**
   * Empties this room and every room recorded under it; idempotent. A child that
   * could not be cleaned stays listed, so the next clean-up tries it again.
   * `resetBy`: the person who asked, if one did (see RoomControl.reset).
   */
  async clean(resetBy?: string, keepMemory = false, ifResetAt?: number): Promise<Outcome> {
    // A reset asked with buttons says when the room was last reset as it asked: a reset since (another click, a second
    // click on the same button) means this one is stale. Checked and recorded before the first await, so two clicks
    // at once reset once.
    if (resetBy && ifResetAt !== undefined && this.control.lastResetAt() !== ifResetAt) {
      throw new DuetError("already_reset", "Duet was already reset here after this was asked, so nothing was reset again");
    }
    // A person's reset keeps the usage, so it does not reset a budget.
    this.turns.reset(Boolean(resetBy));
    this.control.reset(resetBy);
    this.uploads.wipe();
    this.scheduleRows.wipe();
    // The workspace goes with the sandbox below: nothing is checked out any more.
    this.code.wipe(!resetBy);
    this.asked.wipe();
    await this.outbox.forget();
    // A person's reset keeps the room's settings, as it keeps the run policy.
    if (!resetBy) {
      this.model.wipe();
      this.tools.wipe();
    }
    // The pinned facts go unless the person resetting said to keep them, and the summary with them; a person's reset keeps its usage.
    this.memory.wipe(Boolean(resetBy) && keepMemory);
    this.rollingSummary.wipe({ usage: Boolean(resetBy), text: Boolean(resetBy) && keepMemory });
    const errors = await this.tree.cleanChildren(async (child) => {
      // A person's reset resets the rooms under this one the same way, so their audits are kept too.
      const out = await this.peer(child).cleanup(resetBy, keepMemory);
      return (out.body as { errors?: string[] }).errors ?? [];
    });
    this.tree.forgetParent();
    // Duet removed from a workspace (its workspace room cleaned, nobody asking): the servers it added, and their sealed headers, go too.
    if (!resetBy && isWorkspaceRoom(this.roomId)) {
      try {
        await this.tools.forgetWorkspace();
      } catch (err) {
        errors.push(`tool servers: ${(err as Error).message}`);
      }
    }
    try {
      const { executor, problem, saves } = this.executor();
      await saves?.forget();
      if (executor) await executor.destroy(this.roomId);
      else if (problem) errors.push(`sandbox: ${problem}`);
    } catch (err) {
      errors.push(`sandbox: ${(err as Error).message}`);
    }
    const body = { cleaned: true, roomId: this.roomId };
    return errors.length ? { status: 207, body: { ...body, errors } } : ok(body);
  }

  /** The policy followed here and where it comes from. A thread room asks its channel once, if no turn has yet. */
  async policy(): Promise<PolicyResponse> {
    if (channelOfThread(this.roomId)) await this.tree.ensureRegistered();
    return this.control.runPolicy();
  }

  /**
   * Sets this room's own policy, then hands it down to its thread rooms (one
   * RPC and one row each, only on a change), so their turns follow it without
   * asking. A thread that set its own keeps it. A thread that could not be
   * told makes the answer an error a retry fixes (setting the policy again).
   */
  async setPolicy(req: PolicyRequest): Promise<PolicyResponse> {
    await this.ensureListed();
    const set = this.control.setPolicy(req);
    await this.handDown("run policy");
    return set;
  }

  /** The model turns use here, where it comes from, and the choices. A thread room asks its channel once, if no turn has yet. */
  async modelView(): Promise<ModelResponse> {
    if (channelOfThread(this.roomId)) await this.tree.ensureRegistered();
    return this.model.view();
  }

  /** Switches this room's model (two rows: the choice and its audit entry), then hands it down as the run policy is. */
  async setModel(req: ModelRequest): Promise<ModelResponse> {
    await this.ensureListed();
    this.storage.transactionSync(() => {
      this.model.set(req.model.trim());
      this.control.audit.record([{ at: Date.now(), kind: "model", model: req.model.trim(), requestedBy: req.userId }]);
    });
    await this.handDown("model");
    return this.model.view();
  }

  /** Keeps the message an "Ask Duet" form is open on (its text redacted, as the history's is) until the form is submitted. */
  keepAsked(key: string, msg: QuotedMessage): KeepAskedResponse {
    return { kept: true, expiresAt: this.asked.keep(key, { ...msg, text: this.redact(msg.text) }, Date.now()) };
  }

  /** The message kept under `key`, once. */
  takeAsked(key: string): TakeAskedResponse {
    return { message: this.asked.take(key, Date.now()) };
  }

  /** Tells this channel's thread rooms what they now inherit (one RPC and one row each, only on a change). */
  private async handDown(what: string): Promise<void> {
    const inherited = this.inheritance();
    const failed = await this.tree.tellChildren(
      (child) => channelOfThread(child) === this.roomId,
      (child) => this.peer(child).inheritPolicy(inherited),
    );
    if (failed.length) {
      console.error(`threads not told of their channel's ${what}`, failed);
      throw new DuetError("internal", `The ${what} is set here, but ${failed.length} of this channel's threads could not be told; set it again to retry.`, {
        status: 502,
      });
    }
  }

  private inheritance(): Inherited {
    return { runPolicy: this.control.policy.own(), model: this.model.own(), repo: this.code.repo.own() };
  }

  /**
   * Records this room under its parent (a channel under its workspace room),
   * once: a room configured before its first turn is listed in its workspace's home view too.
   */
  async ensureListed(): Promise<void> {
    await this.tree.ensureRegistered();
  }

  /** This room's settings and what `userId` used here today, for its workspace's home view. */
  async summary(userId: string): Promise<RoomSummary> {
    const repo = this.code.repo.view();
    const settings = {
      runPolicy: this.control.runPolicy().runPolicy,
      model: this.model.view().model,
      repo: repo.repo === null ? null : { repo: repo.repo, branch: repo.branch },
      schedules: this.listSchedules(),
    };
    return roomSummary(this.roomId, settings, await this.usage.view(), userId);
  }

  /** The channel rooms recorded under this workspace room, with their settings (see home/room-listing.ts). */
  async listRooms(req: RoomListRequest): Promise<RoomListResponse> {
    if (!isWorkspaceRoom(this.roomId)) {
      throw new DuetError("invalid_request", "invalid request", { details: { roomId: ["Only a workspace room (<platform>-<workspace>) lists its rooms"] } });
    }
    const model = this.model.view();
    return listRooms(req, {
      children: () => this.tree.children(),
      summary: (roomId, userId) => this.peer(roomId).roomSummary(userId),
      models: { choices: model.choices, default: model.model },
      personToday: async (userId) => {
        const today = await this.usage.personToday(userId);
        // The workspace room counts a person as its channels do (one key per workspace and person).
        return today && { ...today, where: "across this workspace's rooms" };
      },
      budgets: (person) => this.usage.budgetsFor(person),
      log: (line, err) => console.error(line, err),
    });
  }

  /** A room under this one registered: it is recorded for clean-ups, and gets what it inherits. */
  async registerChild(child: string): Promise<Inherited> {
    await this.tree.addChild(child);
    return this.inheritance();
  }

  /**
   * A file was written into the workspace from outside a turn (an upload):
   * saved now where the workspace must be saved to outlive its sandbox. A
   * failure stays marked, so the room's next turn saves again and says so.
   */
  async workspaceChanged(): Promise<{ saved: boolean; note?: string }> {
    const { saves } = this.executor();
    if (!saves) return { saved: false };
    saves.markChanged(true);
    const note = await saves.flush();
    return note ? { saved: false, note } : { saved: true };
  }

  /** Storage figures for operators and benchmarks. */
  stats(meter: WriteMeter) {
    return {
      messages: this.ledger.messageCount(),
      databaseBytes: this.storage.sql.databaseSize,
      rowsWrittenSinceStart: meter.rowsWritten,
      bytesBoundSinceStart: meter.bytesBound,
      // A summary being written after the last answer writes its row when it ends: a benchmark waits for it to count it.
      summaryWriting: this.rollingSummary.state().writing,
      summaryAt: this.rollingSummary.state().at,
    };
  }

  private executor(): ExecutorSlot {
    return (this.executorSlot ??= openExecutorSlot(this.config, this.env, this.roomId));
  }

  /** The model this room's turns and summaries call now. */
  private chatModel(): ChatModel {
    return this.chatModels.get(this.model.get());
  }

  private turnDeps(): RoomDeps {
    const { config, roomId } = this;
    const { executor, problem, saves } = this.executor();
    const tools = this.tools.box();
    return {
      roomId,
      config,
      model: () => this.chatModel(),
      executor,
      executorProblem: problem,
      redact: this.redact,
      warmSandbox: () => void executor?.warm(roomId),
      attach: (path) => findAttachment(workspaceFiles(config, this.env), roomId, path, config.DUET_FILE_MAX_BYTES),
      sharedFiles: (after, until) => this.uploads.between(after, until).map(describeUpload),
      pinnedFacts: () => this.memory.lines(),
      summary: () => this.rollingSummary.text(),
      recall: (question, beforeSeq) => recallFor(this.ledger, question, beforeSeq, config.DUET_RECALL_TOKENS),
      proposeFacts: (facts) => this.memory.proposed.offer(facts, Date.now()),
      ...(saves ? { saves } : {}),
      repo: (signal) => this.code.forTurn(config.MAX_RUNS_PER_REPLY > 0, signal),
      ...(tools ? { tools } : {}),
    };
  }
}
