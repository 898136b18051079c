import { Agent } from "agents";
import type {
  AskTicket,
  DecisionRequest,
  DeliveryConfirm,
  DeliveryHold,
  DeliveryPlatform,
  ExecRequest,
  MessageRequest,
  ModelRequest,
  PolicyRequest,
  PrOpenRequest,
  PrSkipRequest,
  PrProposeRequest,
  RepoRequest,
  PinFactRequest,
  ProposalClick,
  QuotedMessage,
  RoomListRequest,
  RoomSummary,
  ScheduleRequest,
  StopRequest,
  UnscheduleRequest,
} from "@duet/shared";
import type { Upload } from "../files/upload-log.ts";
import type { PrEvent } from "../github/webhook-events.ts";
import { PULL_ROOMS_NAME, type PullRooms } from "../github/webhook-index-object.ts";
import type { DeliveryFeed } from "../outbox/feed-object.ts";
import type { PersonUsage } from "../usage/person-object.ts";
import type { LiveOutcome, StreamOptions } from "../live/live-turns.ts";
import type { UsageEntry } from "../usage/usage-entries.ts";
import { guard, guardWire, ok, outcomeOf, toWire, type Outcome, type WireOutcome } from "../outcome.ts";
import { meterSql } from "../storage/sql-meter.ts";
import type { Vars } from "../vars.ts";
import { Room } from "./room.ts";
import type { ToolServers } from "../tools/tool-servers.ts";
import type { ToolServerAudit } from "../tools/routes.ts";
import type { Inherited, RoomPeer } from "./room-tree.ts";
import { dropNamelessAlarm, knowsName, rememberName } from "./room-name.ts";

/** The Worker's bindings and variables as wrangler provides them (validated in config.ts). */
export interface Env extends Vars {
  DUET_AGENT: DurableObjectNamespace<DuetAgent>;
  DELIVERY_FEED: DurableObjectNamespace<DeliveryFeed>;
  PERSON_USAGE: DurableObjectNamespace<PersonUsage>;
  /** Which room opened each pull request, for GitHub's webhook (absent from a configuration without it). */
  PULL_ROOMS?: DurableObjectNamespace<PullRooms>;
  TOOL_SERVERS: DurableObjectNamespace<ToolServers>;
}

/**
 * One room (its name is its room id): history, turns, sandbox and the rooms
 * under it. This class is the RPC surface the Worker calls; each method returns
 * an Outcome rather than throwing, so errors cross RPC as data with their
 * status intact (those that carry the history as a WireOutcome: its JSON).
 * The room's parts are wired in Room: its turns (RoomTurns),
 * their rows (TurnLedger), the room tree (RoomTree), policy and audit (RoomControl).
 *
 * The SDK starts the room (its onStart, so turns a dead instance left are
 * resumed first) before any public async method runs when that call is the
 * one that wakes it: agents wraps each such method of a subclass for native
 * RPC. Every RPC method here is async for that reason.
 */
export class DuetAgent extends Agent<Env> {
  /** Installed before the first statement of ours, so it sees every write, the SDK's included. */
  private readonly meter = meterSql(this.ctx.storage);
  private parts?: Room;

  private get room(): Room {
    this.parts ??= new Room(
      this.ctx.storage,
      this.env,
      this.name,
      (id) => this.env.DUET_AGENT.getByName(id) as unknown as RoomPeer,
      (platform) => this.env.DELIVERY_FEED.getByName(platform),
      (key) => this.env.PERSON_USAGE.getByName(key),
      (workspace) => this.env.TOOL_SERVERS.getByName(workspace),
      this.env.PULL_ROOMS ? (repo, number, roomId) => this.env.PULL_ROOMS!.getByName(PULL_ROOMS_NAME).remember(repo, number, roomId) : undefined,
      // Spans are sent after the turn that made them, kept alive past the answer.
      (p) => this.ctx.waitUntil(p),
    );
    return this.parts;
  }

  /**
   * Every wake, whatever woke it: turns a previous instance accepted and never
   * answered are resumed here, ahead of the request that woke the room. When
   * nobody sends one, the room's alarm (armed while turns run) is what wakes it.
   * The room's name is stored, so an alarm that wakes it without one after a
   * restart still finds it (see room-name.ts).
   */
  async onStart(): Promise<void> {
    await rememberName(this.ctx.storage, this.ctx.id.name).catch((err) => console.error("DuetAgent could not store its room's name", err));
    try {
      this.room.turns.recover();
    } catch (err) {
      console.error("DuetAgent could not resume interrupted turns on wake", err);
    }
    // The alarm outlives a restart; armed again in case a restart came between a run and its re-arm.
    this.room.schedules.arm().catch((err) => console.error("the room's schedule alarm could not be armed on wake", err));
  }

  /**
   * The SDK's alarm work first (its own jobs; it then clears the alarm when it
   * has none), then ours: a room with turns still running arms the next alarm,
   * undelivered answers are announced, and due schedules ask their questions.
   * An alarm that lands on an instance which cannot tell its room (the id
   * has no name and none is stored) is dropped (see room-name.ts).
   */
  async alarm(): Promise<void> {
    if (!(await knowsName(this.ctx.storage, this.ctx.id.name))) {
      await dropNamelessAlarm(this.ctx);
      return;
    }
    await super.alarm();
    this.room.turns.afterAlarm();
    await this.room.outbox.afterAlarm().catch((err) => console.error("the room could not announce its undelivered answers", err));
    await this.room.schedules.runDue().catch((err) => console.error("the room could not run its due schedules", err));
  }

  /** Adds a scheduled ask: `{schedule}` with its id and next run (named apart from the SDK's own `schedule` methods). */
  async addAsk(req: ScheduleRequest & { ask: string }): Promise<Outcome> {
    return guard(async () => {
      await this.room.ensureListed();
      return ok({ schedule: await this.room.schedules.add(req) });
    });
  }

  async scheduledAsks(): Promise<Outcome> {
    return guard(async () => ok({ schedules: this.room.listSchedules() }));
  }

  /** Removes a schedule; 404 for an id the room does not have. */
  async removeAsk(id: string, req: UnscheduleRequest): Promise<Outcome> {
    return guard(async () => ok({ schedule: this.room.schedules.remove(id, req.userId) }));
  }

  /** The answers waiting for a bot of `platform`, leased to the caller. */
  async claimDeliveries(platform: DeliveryPlatform): Promise<Outcome> {
    return guard(async () => ok({ items: this.room.outbox.claim(platform) }));
  }

  /** A bot posted (or finished posting) a turn's answer. */
  async confirmDelivery(req: DeliveryConfirm): Promise<Outcome> {
    return guard(async () => ok(await this.room.outbox.confirm(req, (key) => this.room.turns.running(key))));
  }

  /** A bot still posting a turn's answer keeps it leased to itself. */
  async holdDelivery(req: DeliveryHold): Promise<Outcome> {
    return guard(async () => ok(this.room.outbox.hold(req.key)));
  }

  /** `claim`: the asking delivery's claimant (CLAIM_HEADER), refused with `answered_elsewhere` when another asked first. */
  /** `traceparent`: the caller's, as it sent it (a malformed one starts a new trace). */
  async message(req: MessageRequest, claim?: string, traceparent?: string, order?: AskTicket): Promise<WireOutcome> {
    return toWire(await guard(() => this.room.turns.message(req, claim, traceparent, order)));
  }

  /** A message answered live: the SSE stream of the turn, or a JSON Outcome when refused. */
  async messageStream(req: MessageRequest, accepts: StreamOptions = {}, claim?: string, traceparent?: string, order?: AskTicket): Promise<LiveOutcome> {
    try {
      return await this.room.turns.messageStream(req, accepts, claim, traceparent, order);
    } catch (err) {
      return outcomeOf(err);
    }
  }

  /** Stops the room's running turn: `{stopped}` says whether one was running. */
  async stop(req: StopRequest): Promise<Outcome> {
    return guard(async () => ok({ stopped: this.room.turns.stop(req.userId || undefined) }));
  }

  async exec(req: ExecRequest): Promise<WireOutcome> {
    return toWire(await guard(() => this.room.turns.exec(req)));
  }

  async policy(): Promise<Outcome> {
    return guard(async () => ok(await this.room.policy()));
  }

  async setPolicy(req: PolicyRequest): Promise<Outcome> {
    return guard(async () => ok(await this.room.setPolicy(req)));
  }

  /** The tool servers this room turned on: `{workspace, tools}`. */
  async roomTools(): Promise<Outcome> {
    return guard(async () => ok({ workspace: this.room.tools.workspace, tools: this.room.tools.enabled() }));
  }

  /** Turns a server of the room's workspace on here (404 when the workspace has none of that name). */
  async enableTool(name: string, by: string | null): Promise<Outcome> {
    return guard(async () => ok({ workspace: this.room.tools.workspace, ...(await this.room.tools.enable(name, by)) }));
  }

  /** A tool server added to or removed from the workspace from this room: its audit records it. */
  async auditToolServer(entry: ToolServerAudit): Promise<void> {
    this.room.control.audit.record([{ at: Date.now(), ...entry }]);
  }

  async disableTool(name: string): Promise<Outcome> {
    return guard(async () => ok({ workspace: this.room.tools.workspace, ...this.room.tools.disable(name) }));
  }

  async model(): Promise<Outcome> {
    return guard(async () => ok(await this.room.modelView()));
  }

  async setModel(req: ModelRequest): Promise<Outcome> {
    return guard(async () => ok(await this.room.setModel(req)));
  }

  async repo(): Promise<Outcome> {
    return guard(async () => ok(await this.room.code.view()));
  }

  async setRepo(req: RepoRequest): Promise<Outcome> {
    return guard(async () => ok(await this.room.code.set(req)));
  }

  /** Checks the room's repository out at `repo/` now (or fetches into it). */
  async syncRepo(): Promise<Outcome> {
    return guard(async () => ok(await this.room.code.syncNow()));
  }

  /** Proposes the change in the room's checkout as a pull request. */
  async proposePr(req: PrProposeRequest): Promise<Outcome> {
    return guard(async () => ok(await this.room.code.propose(req)));
  }

  /** Opens the proposal `id` as a pull request (pushes its change first). */
  async openPr(id: string, req: PrOpenRequest): Promise<Outcome> {
    return guard(async () => ok(await this.room.code.open(id, req)));
  }

  /** Drops the proposal `id` unopened. */
  async skipPr(id: string, req: PrSkipRequest): Promise<Outcome> {
    return guard(async () => ok(this.room.code.skip(id, req)));
  }

  /** GitHub's webhook: something happened to the pull request this room opened (`{handled}`). */
  async prEvent(event: PrEvent, deliveryId: string): Promise<Outcome> {
    return guard(async () => ok(await this.room.code.event(event, deliveryId)));
  }

  async removeRepo(userId?: string): Promise<Outcome> {
    return guard(async () => ok(await this.room.code.remove(userId)));
  }

  /** The facts people pinned here. */
  async memory(): Promise<Outcome> {
    return guard(async () => ok(this.room.memory.view()));
  }

  async remember(req: PinFactRequest): Promise<Outcome> {
    return guard(async () => ok(this.room.memory.remember(req)));
  }

  /** A person clicked Pin on a fact the model proposed. */
  async pinProposed(id: string, click: ProposalClick): Promise<Outcome> {
    return guard(async () => ok(this.room.memory.pinProposed(id, click)));
  }

  /** A person clicked Dismiss on a fact the model proposed. */
  async dismissProposed(id: string): Promise<Outcome> {
    return guard(async () => ok(this.room.memory.dismissProposed(id)));
  }

  async forget(n: number, userId?: string): Promise<Outcome> {
    return guard(async () => ok(this.room.memory.forget(n, userId)));
  }

  /** Keeps the message an "Ask Duet" form is open on, under the bot's `key`, until `takeAsked` (or ASKED_KEEP_MS). */
  async keepAsked(key: string, msg: QuotedMessage): Promise<Outcome> {
    return guard(async () => ok(this.room.keepAsked(key, msg)));
  }

  /** The message kept under `key`, once: `{message: null}` when none is. */
  async takeAsked(key: string): Promise<Outcome> {
    return guard(async () => ok(this.room.takeAsked(key)));
  }

  /** Runs or skips a command proposed under `approve`. */
  async decide(approvalId: string, req: DecisionRequest): Promise<Outcome> {
    return guard(() => this.room.turns.decide(approvalId, req));
  }

  /** Read after the room's recovery, so an approved run cut off by a restart is listed. */
  async audit(): Promise<Outcome> {
    return guard(async () => ok(this.room.control.auditEntries()));
  }

  /** A person shared a file into the workspace: the room's next turn tells the model. */
  async recordUpload(upload: Upload): Promise<Outcome> {
    return guard(async () => {
      this.room.uploads.record(upload);
      return ok({ recorded: true });
    });
  }

  /** A file was written into the workspace from outside a turn: `{saved, note?}` (see Room.workspaceChanged). */
  async workspaceChanged(): Promise<Outcome> {
    return guard(async () => ok(await this.room.workspaceChanged()));
  }

  /**
   * The history (the last 50 messages), or with `before` the 50 before that
   * turn; `before` in the answer is where the next page further back starts
   * (null when there is none).
   */
  async messages(before?: number): Promise<WireOutcome> {
    return guardWire(async () => ok(this.room.ledger.page(before)));
  }

  /** Storage figures for operators and benchmarks: what this room holds and what it has written since it woke. */
  async stats(): Promise<Outcome> {
    return guard(async () => ok(this.room.stats(this.meter)));
  }

  /** Empties this room and every room under it (see Room.clean); `resetBy` is the person who asked, if one did. */
  /** `keepMemory`: a person's reset that keeps the pinned facts (the room's deletion never does). */
  /** `ifResetAt`: the reset is refused (`already_reset`) unless the room was last reset then (see Room.clean). */
  async cleanup(resetBy?: string, keepMemory = false, ifResetAt?: number): Promise<Outcome> {
    return guard(() => this.room.clean(resetBy, keepMemory, ifResetAt));
  }

  /** A room under this one (a thread under its channel, a channel under its workspace) announces itself; answers what it inherits. */
  async registerChild(child: string): Promise<Inherited> {
    return this.room.registerChild(child);
  }

  /** Model usage over the last 7 days with this room's threads', and the budgets (what `userId` has left). */
  async usage(userId?: string): Promise<Outcome> {
    return guard(async () => ok(await this.room.usage.view(userId)));
  }

  /** This room's settings and what `userId` used here today (asked by its workspace room's listing). */
  async roomSummary(userId: string): Promise<RoomSummary> {
    return this.room.summary(userId);
  }

  /** A workspace room's channel rooms with their settings (`POST /api/rooms/:roomId/rooms`). */
  async listRooms(req: RoomListRequest): Promise<Outcome> {
    return guard(async () => ok(await this.room.listRooms(req)));
  }

  /** This room's own usage entries, for its channel room to add up. */
  async usageEntries(): Promise<UsageEntry[]> {
    return this.room.usage.entries();
  }

  /** This room's parent changed what it hands down (a channel's run policy, to its threads). */
  async inheritPolicy(inherited: Inherited): Promise<void> {
    this.room.tree.inherit(inherited);
  }
}
