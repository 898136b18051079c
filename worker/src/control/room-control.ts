import type {
  AuditEntry,
  AuditResponse,
  DecidedApproval,
  DecisionRequest,
  PendingApproval,
  PolicyRequest,
  PolicyResponse,
  RunPolicy,
  RunResult,
} from "@duet/shared";
import type { WorkerConfig } from "../config.ts";
import { ApprovalStore, decidedView, type Approval } from "./approvals.ts";
import { AuditLog } from "./audit-log.ts";
import { RunPolicyStore } from "./run-policy.ts";

/** An approved command's result, and who stopped it when someone did (`by` absent: they gave no name). */
export interface Ran {
  run: RunResult;
  stopped?: { by?: string };
}

/** A decision as it was taken: what the answer shows, and what the room does next. */
export interface Decided {
  /** The approval as the answer shows it (command redacted). */
  view: DecidedApproval;
  /** The approval as stored, for finishRun once its command ran. */
  approval: Approval;
  /** The command as written, to run (a `run` decision only). */
  toRun?: string;
  /** The command as shown (redacted). */
  cmd: string;
  at: number;
}

/** How an approved command ended, for the room's history: who approved it, and its result (redacted). */
export interface RunOutcome {
  by: string;
  run: RunResult;
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

  /**
   * Reads DUET_RUN_POLICY (a room's policy until someone sets one) and
   * DUET_APPROVAL_TTL_MS from `config`; `redact` is the room's one redactor,
   * applied to every command shown, or stored once decided; `inherited` is
   * the policy a thread room's channel handed down (followed when the thread
   * set none).
   */
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly config: WorkerConfig,
    private readonly redact: (text: string) => string,
    inherited: () => RunPolicy | null = () => null,
    private readonly now: () => number = Date.now,
  ) {
    this.policy = new RunPolicyStore(storage, config.DUET_RUN_POLICY, inherited);
    this.approvals = new ApprovalStore(storage);
    this.audit = new AuditLog(storage);
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

  /** Refuses a click nobody may act on (not_found, approval_expired, already_decided, own_proposal) before anything is queued for it. */
  check(id: string, req: DecisionRequest): void {
    this.noticeExpired();
    this.approvals.check(id, this.now(), req.approveOwn === false ? req.userId : undefined);
  }

  /**
   * Runs or skips a waiting command: the decision is final once this returns
   * (a second click is refused), with a skip's audit entry in the same
   * transaction (two rows; a run's one row now, its audit when it ends). Check
   * and write have no await between them, so two clicks cannot both win. The
   * room runs the command, and writes the history, in its queue.
   */
  decide(id: string, req: DecisionRequest): Decided {
    const { approvals, redact } = this;
    const at = this.now();
    let approval!: Approval;
    this.storage.transactionSync(() => {
      approval = approvals.decide(id, req.decision, req.userId, at, redact, req.approveOwn === false);
      if (req.decision === "skip") this.audit.record([entryOf("skipped", approval, at, { cmd: redact(approval.cmd) })]);
    });
    const cmd = redact(approval.cmd);
    return { view: decidedView(approval, redact), approval, cmd, at, ...(req.decision === "run" ? { toRun: approval.cmd } : {}) };
  }

  /**
   * Approved commands a previous instance started and never finished (it was
   * evicted or crashed mid-run). They may have run, so they are not run again:
   * each is finished with the outcome `cutOff` gives (its audit entry written)
   * and returned for the history. Called once per instance, before anything
   * new is decided.
   */
  recoverCutOff(cutOff: (cmd: string) => RunResult): RunOutcome[] {
    return this.approvals.unfinished().map((approval) => this.finishRun(approval, { run: cutOff(this.redact(approval.cmd)) }));
  }

  /** Records how an approved command ended: its audit entry and the approval finished (2 rows, one transaction). */
  finishRun(approval: Approval, { run, stopped }: Ran): RunOutcome {
    const at = this.now();
    const stop = stopped ? stopFields(stopped) : {};
    this.storage.transactionSync(() => {
      this.audit.record([entryOf("approved", approval, at, { cmd: run.cmd, exitCode: run.exitCode, durationMs: run.durationMs, ...stop })]);
      this.approvals.finish(approval.id, at);
    });
    return { by: approval.decidedBy!, run, at };
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
   * and its audit, adding who reset it: the trail of who ran what and who
   * changed the policy must outlive a reset anyone may be allowed to do. A
   * clean-up nobody asked for (the channel was archived or deleted, Duet
   * uninstalled) leaves nothing behind.
   */
  /** When a person last reset the room (its audit's latest reset), 0 when none did since the room was made or deleted. */
  lastResetAt(): number {
    return this.audit.entries().findLast((e) => e.kind === "reset")?.at ?? 0;
  }

  reset(by?: string): void {
    this.storage.transactionSync(() => {
      this.approvals.wipe();
      if (by) {
        this.audit.record([{ at: this.now(), kind: "reset", requestedBy: by }]);
      } else {
        this.audit.wipe();
        this.policy.wipe();
      }
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
