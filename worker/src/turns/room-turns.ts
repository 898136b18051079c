import type { AskTicket, DecisionRequest, ExecRequest, MessageRequest } from "@duet/shared";
import { storedStream, streamOf, type LiveOutcome, type StreamOptions } from "../live/live-turns.ts";
import type { Outcome } from "../outcome.ts";
import { decideApproval } from "./approval-decisions.ts";
import { runDirect } from "./direct-run.ts";
import { MessageTurns } from "./message-turns.ts";
import type { RoomParts } from "./room-parts.ts";
import { recoverTurns } from "./turn-recovery.ts";
import { replayKey, TurnWork } from "./turn-work.ts";

/**
 * A room's turns: admission, the one-at-a-time queue, every ledger write of a
 * turn (accepted, progress, answered, dropped, and the history lines of
 * decisions and direct runs), idempotent replays and the recovery of turns an
 * eviction cut off. Each kind of work has its file (message-turns.ts,
 * direct-run.ts, approval-decisions.ts, turn-recovery.ts) over what they
 * share (turn-work.ts); the parts below them (runTurn, the room's control)
 * return data, and these write it.
 */
export class RoomTurns {
  private readonly work: TurnWork;
  private readonly messages: MessageTurns;
  private recovered = false;

  constructor(room: RoomParts) {
    this.work = new TurnWork(room);
    this.messages = new MessageTurns(this.work);
  }

  /** Places waiting behind the one running (what a status or a test reads). */
  get waiting(): number {
    return this.work.queue.waitingCount;
  }

  /** Resumes what a previous instance left unanswered (turn-recovery.ts); once per instance, before its first turn (onStart). */
  recover(): void {
    if (this.recovered) return;
    this.recovered = true;
    recoverTurns(this.work, this.messages);
  }

  /** `claim`: the asking delivery's claimant (followClaim); another one's request for a known key is refused. */
  async message(req: MessageRequest, claim?: string, traceparent?: string, order?: AskTicket): Promise<Outcome> {
    return (await this.messages.open(req, false, claim, traceparent, order)).answer;
  }

  /**
   * The same turn, live: the SSE stream of its events. A retry of a running
   * turn follows it from its first event; a retry of an answered one gets its
   * stored answer as a lone `done`. A refusal (a full room) stays JSON.
   * `accepts` names the optional events the client reads (`queued`), and
   * whether it shows the answer whole (then the model answers whole, as for JSON).
   */
  async messageStream(req: MessageRequest, accepts: StreamOptions = {}, claim?: string, traceparent?: string, order?: AskTicket): Promise<LiveOutcome> {
    const { answer, channel, joined } = await this.messages.open(req, !accepts.whole, claim, traceparent, order);
    if (channel) return { status: 200, body: null, stream: streamOf(channel, joined, accepts) };
    const stored = await answer;
    return stored.status === 200 ? { status: 200, body: stored.body, stream: storedStream(stored.body) } : stored;
  }

  /** Whether the message turn under `key` is running here now. */
  running(key: string): boolean {
    return this.work.live.find(replayKey("message", key)) !== undefined;
  }

  /** Stops the room's running turn, or the approved command running in its place (by `userId`); false when none runs. */
  stop(userId?: string): boolean {
    return this.work.live.stop(userId);
  }

  /** A direct run (direct-run.ts). */
  exec(req: ExecRequest): Promise<Outcome> {
    return runDirect(this.work, req);
  }

  /** A person ran or skipped a proposed command (approval-decisions.ts). */
  decide(approvalId: string, req: DecisionRequest): Promise<Outcome> {
    return decideApproval(this.work, approvalId, req);
  }

  /** The room was cleaned: turns still running must not write into it. */
  reset(keepUsage = false): void {
    this.work.epoch++;
    this.work.room.ledger.wipe(keepUsage);
  }

  /** After the room's alarm fired: arm the next one while turns remain (the keep-awake alarm, awake-queue.ts). */
  afterAlarm(): void {
    this.work.queue.afterAlarm();
  }
}
