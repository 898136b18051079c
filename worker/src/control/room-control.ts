import type {
  AuditEntry,
  AuditResponse,
  DecisionRequest,
  DecisionResponse,
  PendingApproval,
  PolicyRequest,
  PolicyResponse,
  RunPolicy,
  RunResult,
} from "@duet/shared";
import type { WorkerConfig } from "../config.ts";
import { redactor } from "../redaction.ts";
import { buildReply } from "../reply/reply-text.ts";
import { ApprovalStore, decidedView, type Approval } from "./approvals.ts";
import { AuditLog } from "./audit-log.ts";
import { RunPolicyStore } from "./run-policy.ts";

/** What a decision needs from the room: its turn queue, its sandbox and its history. */
export interface DecisionRunner {
  /** Queues `work` behind the room's turns; throws at once (room_busy) when the room is full. */
  enqueue<T>(work: () => Promise<T>): Promise<T>;
  /** Runs one command in the room's sandbox (redaction and output caps included); a stop of the room kills it. */
  run(cmd: string): Promise<Ran>;
  /** Adds the decision (and the run's output) to the room's history, so the model's next turn knows. */
  remember(note: DecisionNote): void;
}

/** An approved command's result, and who stopped it when someone did (`by` absent: they gave no name). */
export interface Ran {
  run: RunResult;
  stopped?: { by?: string };
}

/** A decision as the room's history tells it: the person's action, and what came of it. */
export interface DecisionNote {
  userId: string;
  question: string;
  reply: string;
  runs: RunResult[];
  at: number;
}

/**
 * A room's run policy, its commands waiting for approval and its audit trail.
 * Every change a person makes is written together with its audit row, in one
 * transaction.
 */
export class RoomControl {
  readonly policy: RunPolicyStore;
  readonly approvals: ApprovalStore;
  readonly audit: AuditLog;
  /** Applied to every command shown, or stored once decided. */
  private readonly redact: (text: string) => string;

  /**
   * Reads DUET_RUN_POLICY (a room's policy until someone sets one) and
   * DUET_APPROVAL_TTL_MS from `config`; `inherited` is the policy a thread
   * room's channel handed down (followed when the thread set none).
   */
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly config: WorkerConfig,
    inherited: () => RunPolicy | null = () => null,
    private readonly now: () => number = Date.now,
  ) {
    this.policy = new RunPolicyStore(storage, config.DUET_RUN_POLICY, inherited);
    this.approvals = new ApprovalStore(storage);
    this.audit = new AuditLog(storage);
    this.redact = redactor(config);
  }

  /** The policy followed here and where it comes from (this room, its channel, the default). */
  runPolicy(): PolicyResponse {
    return this.policy.view();
  }

  /** Two rows written: the policy and its audit entry. */
  setPolicy(req: PolicyRequest): PolicyResponse {
    this.storage.transactionSync(() => {
      this.policy.set(req.runPolicy);
      this.audit.record([{ at: this.now(), kind: "policy", runPolicy: req.runPolicy, requestedBy: req.userId }]);
    });
    return { runPolicy: req.runPolicy, source: "room" };
  }

  /**
   * Audits the approvals that expired with nobody deciding and were not yet
   * audited: one audit row for all of them, and each approval marked (one row
   * each), once. The room looks when someone clicks one, lists the audit, or
   * asks the next turn; no timer writes anything. Costs no query while the
   * earliest waiting approval has time left.
   */
  noticeExpired(): void {
    const now = this.now();
    if (!this.approvals.anyExpired(now)) return;
    this.storage.transactionSync(() => {
      const expired = this.approvals.takeExpired(now);
      this.audit.record(
        expired.map((a) => ({
          at: now,
          kind: "expired",
          cmd: this.redact(a.cmd),
          ...(a.requestedBy ? { requestedBy: a.requestedBy } : {}),
          expiresAt: a.expiresAt,
        })),
      );
    });
  }

  /** The model's commands under `approve`: each waits for a person (one row written per command). */
  propose(cmds: string[], requestedBy: string | null): PendingApproval[] {
    // A slot is reused only once its approval's expiry is audited.
    this.noticeExpired();
    const pending = this.approvals.propose(cmds, requestedBy, this.now(), this.config.DUET_APPROVAL_TTL_MS);
    return pending.map((p) => ({ ...p, cmd: this.redact(p.cmd) }));
  }

  /**
   * Runs or skips a waiting command. Unknown, expired and decided approvals
   * are refused before anything is queued. The decision is admitted to the
   * room's queue and marked in the same tick, so a second click is refused at
   * once and nothing runs twice. Both go through the queue: a run must not
   * run beside a turn, and a skip's line in the history must come after the
   * turn running now, as its place says. A skip answers without waiting for it.
   */
  async decide(id: string, req: DecisionRequest, room: DecisionRunner): Promise<DecisionResponse> {
    const { approvals, redact, storage } = this;
    this.noticeExpired();
    const now = this.now();
    approvals.check(id, now);
    let approval!: Approval;
    const done = room.enqueue(async (): Promise<RunResult | undefined> => {
      const cmd = redact(approval.cmd);
      if (req.decision === "skip") {
        room.remember({ userId: req.userId, question: `Skip: ${cmd}`, reply: `Skipped by ${req.userId}; not run: ${cmd}`, runs: [], at: now });
        return undefined;
      }
      const ran = await room.run(approval.cmd);
      this.finishRun(approval, ran, room.remember);
      return ran.run;
    });
    // Same tick as the admission above: the queued work cannot start before this, and nothing can interleave.
    storage.transactionSync(() => {
      approval = approvals.decide(id, req.decision, req.userId, now, redact);
      if (req.decision === "skip") this.audit.record([entryOf("skipped", approval, now, { cmd: redact(approval.cmd) })]);
    });
    const view = decidedView(approval, redact);
    if (req.decision === "skip") {
      done.catch((err) => console.error("a skipped command could not be added to the history", err));
      return { approval: view };
    }
    return { approval: view, run: await done };
  }

  /**
   * Approved commands a previous instance started and never finished (it was
   * evicted or crashed mid-run). They may have run, so they are not run again:
   * each is recorded with the outcome `cutOff` gives, in the audit and the
   * history. Called once per instance, before anything new is decided.
   */
  recoverCutOff(cutOff: (cmd: string) => RunResult, remember: (note: DecisionNote) => void): void {
    for (const approval of this.approvals.unfinished()) this.finishRun(approval, { run: cutOff(this.redact(approval.cmd)) }, remember);
  }

  /** Records how an approved command ended: its audit entry, its line in the history, the approval finished (3 rows). */
  private finishRun(approval: Approval, { run, stopped }: Ran, remember: (note: DecisionNote) => void): void {
    const at = this.now();
    const stop = stopped ? stopFields(stopped) : {};
    this.storage.transactionSync(() => {
      this.audit.record([entryOf("approved", approval, at, { cmd: run.cmd, exitCode: run.exitCode, durationMs: run.durationMs, ...stop })]);
      remember({ userId: approval.decidedBy!, question: `Run: ${run.cmd}`, reply: buildReply("", [run], []), runs: [run], at });
      this.approvals.finish(approval.id, at);
    });
  }

  /** Commands that ran without an approval: a turn's automatic ones (one row for all), or a direct run; `killed`: the one a stop killed. */
  recordRuns(kind: "auto" | "direct", runs: RunResult[], requestedBy: string | null, killed?: { index: number; by?: string }): void {
    const at = this.now();
    this.audit.record(
      runs.map((r, i) => ({
        at,
        kind,
        cmd: r.cmd,
        ...(requestedBy ? { requestedBy } : {}),
        exitCode: r.exitCode,
        durationMs: r.durationMs,
        ...(killed?.index === i ? stopFields(killed) : {}),
      })),
    );
  }

  /** The audit trail, with the approvals that expired since anyone looked. */
  auditEntries(): AuditResponse {
    this.noticeExpired();
    return { entries: this.audit.entries() };
  }

  /**
   * The room was cleaned. A person's reset (`by` set) keeps the room's policy
   * and starts the emptied audit with who reset it; a clean-up nobody asked
   * for (the channel was archived, Duet uninstalled) leaves nothing behind.
   */
  reset(by?: string): void {
    this.storage.transactionSync(() => {
      this.approvals.wipe();
      this.audit.wipe();
      if (by) this.audit.record([{ at: this.now(), kind: "reset", requestedBy: by }]);
      else this.policy.wipe();
    });
  }
}

/** An audit entry's fields for a command someone stopped while it ran. */
function stopFields(stopped: { by?: string }): Pick<AuditEntry, "stopped" | "stoppedBy"> {
  return { stopped: true, ...(stopped.by ? { stoppedBy: stopped.by } : {}) };
}

function entryOf(kind: "approved" | "skipped", a: Approval, at: number, extra: Partial<AuditEntry>): AuditEntry {
  return {
    at,
    kind,
    ...(a.requestedBy ? { requestedBy: a.requestedBy } : {}),
    ...(a.decidedBy ? { decidedBy: a.decidedBy } : {}),
    ...extra,
  };
}
