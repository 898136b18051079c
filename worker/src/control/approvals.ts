import { DuetError, type DecidedApproval, type PendingApproval } from "@duet/shared";

/**
 * Approval rows kept per room. Past this, a new proposal reuses the oldest
 * row that is decided or expired (an UPDATE, one row written); until then a
 * repeated click on a decided approval can still be told it was decided.
 */
export const APPROVALS_KEEP = 100;

export type Decision = "run" | "skip";

/** A proposed command as stored. `cmd` is the command to run while it waits, its redacted form once decided. */
export interface Approval extends Omit<PendingApproval, "requestedBy"> {
  requestedBy: string | null;
  decision: Decision | null;
  decidedBy: string | null;
  decidedAt: number | null;
}

type Row = Record<string, SqlStorageValue>;

/**
 * The commands waiting for a person in one room. They are rows in the room's
 * SQLite database, so they survive evictions, restarts and deploys; they
 * expire at `expiresAt` and a decision is final. Ids are random UUIDs, looked
 * up without an index (the table holds at most APPROVALS_KEEP rows plus those
 * still waiting), since an index would add a row written per change.
 */
export class ApprovalStore {
  /** The earliest expiry among approvals nobody decided and whose expiry is not yet recorded: until then no query looks. Undefined: not read yet. */
  private nextExpiry: number | undefined;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly keep = APPROVALS_KEEP,
  ) {
    storage.sql.exec(`CREATE TABLE IF NOT EXISTS duet_approvals (
      slot INTEGER PRIMARY KEY, id TEXT NOT NULL, cmd TEXT NOT NULL, requested_by TEXT, created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL, decision TEXT, decided_by TEXT, decided_at INTEGER, finished_at INTEGER)`);
  }

  private get sql() {
    return this.storage.sql;
  }

  /** Records each command as waiting until now + ttlMs: one row written per command. */
  propose(cmds: string[], requestedBy: string | null, now: number, ttlMs: number): PendingApproval[] {
    return cmds.map((cmd) => {
      const approval = { id: crypto.randomUUID(), cmd, expiresAt: now + ttlMs, ...(requestedBy ? { requestedBy } : {}) };
      if (this.nextExpiry !== undefined) this.nextExpiry = Math.min(this.nextExpiry, approval.expiresAt);
      const values = [approval.id, cmd, requestedBy, now, approval.expiresAt];
      const slot = this.reusableSlot(now);
      if (slot === null) {
        this.sql.exec(`INSERT INTO duet_approvals (id, cmd, requested_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`, ...values).toArray();
      } else {
        this.sql
          .exec(
            `UPDATE duet_approvals SET id = ?, cmd = ?, requested_by = ?, created_at = ?, expires_at = ?,
             decision = NULL, decided_by = NULL, decided_at = NULL, finished_at = NULL WHERE slot = ?`,
            ...values, slot,
          )
          .toArray();
      }
      return approval;
    });
  }

  /** Once the table is full, the oldest row nobody can still act on (decided and finished, or expired). */
  private reusableSlot(now: number): number | null {
    const row = this.sql
      .exec<Row>(
        `SELECT slot FROM duet_approvals WHERE (SELECT COUNT(*) FROM duet_approvals) >= ?
           AND (finished_at IS NOT NULL OR (decision IS NULL AND expires_at <= ?)) ORDER BY created_at, slot LIMIT 1`,
        this.keep, now,
      )
      .toArray()[0];
    return row ? Number(row.slot) : null;
  }

  get(id: string): Approval | null {
    const row = this.sql.exec<Row>(`SELECT * FROM duet_approvals WHERE id = ?`, id).toArray()[0];
    return row ? toApproval(row) : null;
  }

  /**
   * The approval if a person may still decide it, else what a click on it gets:
   * not_found, already_decided, approval_expired, or own_proposal when `notBy`
   * (the clicker, where nobody may decide their own proposal) asked for it.
   */
  check(id: string, now: number, notBy?: string): Approval {
    const found = this.get(id);
    if (!found) throw new DuetError("not_found", "no such approval in this room");
    if (found.decision) {
      const what = found.decision === "run" ? "run" : "skipped";
      throw new DuetError("already_decided", `already ${what} by ${found.decidedBy}`);
    }
    if (now >= found.expiresAt) throw new DuetError("approval_expired", "this approval expired before anyone decided");
    if (notBy !== undefined && found.requestedBy === notBy) throw new DuetError("own_proposal", "proposed for this person's own question; someone else must decide it");
    return found;
  }

  /**
   * Decides a waiting approval (or throws as check does). Check and write run
   * with no await between them, so two clicks cannot both win. Returns the
   * approval with the command to run; the row keeps only `shownCmd` (redacted).
   * A skip is finished at once; a run when finish() says so.
   */
  decide(id: string, decision: Decision, by: string, now: number, shownCmd: (cmd: string) => string, notOwn = false): Approval {
    const found = this.check(id, now, notOwn ? by : undefined);
    const finished = decision === "skip" ? now : null;
    this.sql
      .exec(
        `UPDATE duet_approvals SET decision = ?, decided_by = ?, decided_at = ?, cmd = ?, finished_at = ? WHERE id = ?`,
        decision, by, now, shownCmd(found.cmd), finished, id,
      )
      .toArray();
    return { ...found, decision, decidedBy: by, decidedAt: now };
  }

  /** The approved command ran (its outcome is recorded): one row written. */
  finish(id: string, at: number): void {
    this.sql.exec(`UPDATE duet_approvals SET finished_at = ? WHERE id = ?`, at, id).toArray();
  }

  /** Whether a waiting approval's time is up: no query while the earliest one still has time (its expiry is kept). */
  anyExpired(now: number): boolean {
    if (this.nextExpiry === undefined) {
      const at = this.sql.exec<Row>(`SELECT MIN(expires_at) AS at FROM duet_approvals WHERE decision IS NULL AND finished_at IS NULL`).one().at;
      this.nextExpiry = at === null ? Infinity : Number(at);
    }
    return now >= this.nextExpiry;
  }

  /**
   * Approvals that expired with nobody deciding and were not yet taken, now
   * marked finished (one row written each), so each is taken once. Costs no
   * query while the earliest waiting approval has time left.
   */
  takeExpired(now: number): Approval[] {
    if (!this.anyExpired(now)) return [];
    const open = `decision IS NULL AND finished_at IS NULL AND expires_at <= ?`;
    const expired = this.sql.exec<Row>(`SELECT * FROM duet_approvals WHERE ${open} ORDER BY expires_at, slot`, now).toArray().map(toApproval);
    if (expired.length) this.sql.exec(`UPDATE duet_approvals SET finished_at = ? WHERE ${open}`, now, now).toArray();
    this.nextExpiry = undefined;
    return expired;
  }

  /** Approved commands started and never finished: after a restart, these were cut off mid-run. */
  unfinished(): Approval[] {
    return this.sql
      .exec<Row>(`SELECT * FROM duet_approvals WHERE decision = 'run' AND finished_at IS NULL ORDER BY decided_at`)
      .toArray()
      .map(toApproval);
  }

  wipe(): void {
    this.sql.exec(`DELETE FROM duet_approvals`).toArray();
    this.nextExpiry = undefined;
  }
}

/** An approval as its answer shows it: the command redacted. */
export function decidedView(a: Approval, shownCmd: (cmd: string) => string): DecidedApproval {
  return {
    id: a.id,
    cmd: shownCmd(a.cmd),
    expiresAt: a.expiresAt,
    decision: a.decision!,
    decidedBy: a.decidedBy!,
    decidedAt: a.decidedAt!,
    ...(a.requestedBy ? { requestedBy: a.requestedBy } : {}),
  };
}

function toApproval(r: Row): Approval {
  return {
    id: String(r.id),
    cmd: String(r.cmd),
    expiresAt: Number(r.expires_at),
    requestedBy: r.requested_by === null ? null : String(r.requested_by),
    decision: r.decision === null ? null : (String(r.decision) as Decision),
    decidedBy: r.decided_by === null ? null : String(r.decided_by),
    decidedAt: r.decided_at === null ? null : Number(r.decided_at),
  };
}
