import {
  DuetError,
  nextRuns,
  parseSchedule,
  type DeliveryTarget,
  type ScheduleRequest,
  type ScheduleSpec,
  type ScheduleView,
} from "@duet/shared";
import { LazyTable } from "../storage/lazy-table.ts";

type Row = Record<string, SqlStorageValue>;

/** A run that came due: the ask to put to the room, as the person who scheduled it. */
export interface DueRun {
  schedule: ScheduleView;
  /** When it was due (ms): with the id, the run's idempotency key, so a repeated alarm never asks twice. */
  dueAt: number;
}

export interface ScheduleLimits {
  minIntervalS: number;
  perRoom: number;
}

/**
 * A room's schedules: one row each, holding what was typed, the parsed spec,
 * the ask, who set it, where runs are posted and when the next one is due.
 * A schedule without a target keeps its answers in the room's history only.
 * A run writes one row (its next time) beside the turn's own; a room with
 * no schedule writes nothing here, not even the table (made by the first
 * `add`), and its turns never touch it.
 * Returns data; the room writes the audit and starts the turns.
 */
export class Schedules {
  private readonly table: LazyTable;

  constructor(
    private readonly sql: SqlStorage,
    private readonly limits: () => ScheduleLimits,
    private readonly newId: () => string = () => crypto.randomUUID().replace(/-/g, "").slice(0, 8),
  ) {
    this.table = new LazyTable(
      sql,
      "duet_schedules",
      `id TEXT PRIMARY KEY, typed TEXT NOT NULL, spec TEXT NOT NULL, ask TEXT NOT NULL, user_id TEXT NOT NULL,
      user_name TEXT, target TEXT, created_at INTEGER NOT NULL, next_at INTEGER NOT NULL`,
    );
  }

  /** Adds a schedule (one row) after reading `when`; refuses one past the room's limit. */
  add(req: ScheduleRequest & { ask: string }, now = Date.now()): ScheduleView {
    const { minIntervalS, perRoom } = this.limits();
    const spec = parseSchedule(req.when, minIntervalS, now);
    if (this.count() >= perRoom) {
      throw new DuetError("invalid_request", `This room already has ${perRoom} schedules, the most it may have. Remove one first (the room's list of schedules shows their ids).`, { status: 409 });
    }
    const view: ScheduleView = {
      id: this.newId(),
      when: req.when.trim(),
      ask: req.ask,
      userId: req.userId.trim(),
      ...(req.userName ? { userName: req.userName } : {}),
      createdAt: now,
      nextRunAt: nextRuns(spec, now, 1, now)[0],
      ...(req.target ? { target: req.target as DeliveryTarget } : {}),
    };
    this.table.make();
    this.sql.exec(
      `INSERT INTO duet_schedules (id, typed, spec, ask, user_id, user_name, target, created_at, next_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      view.id, view.when, JSON.stringify(spec), view.ask, view.userId, view.userName ?? null, view.target ? JSON.stringify(view.target) : null, now, view.nextRunAt,
    );
    return view;
  }

  /** Removes one (one row); a DuetError 404 names an id the room does not have. */
  remove(id: string): ScheduleView {
    const found = this.rows(`WHERE id = ?`, id)[0];
    if (!found) throw new DuetError("not_found", `This room has no schedule \`${id}\`; the room's list of schedules shows their ids.`);
    this.sql.exec(`DELETE FROM duet_schedules WHERE id = ?`, id);
    return found.view;
  }

  /** Soonest first. */
  list(): ScheduleView[] {
    return this.rows(`ORDER BY next_at, id`).map((r) => r.view);
  }

  /**
   * The runs due at `now`, each schedule moved on to its next time after
   * `now` (one row each): a room that slept through several runs asks once,
   * not once per missed run.
   */
  takeDue(now = Date.now()): DueRun[] {
    const due = this.rows(`WHERE next_at <= ? ORDER BY next_at, id`, now);
    return due.map(({ view, spec }) => {
      const next = nextRuns(spec, now, 1, view.createdAt)[0] ?? Number.MAX_SAFE_INTEGER;
      this.sql.exec(`UPDATE duet_schedules SET next_at = ? WHERE id = ?`, next, view.id);
      return { schedule: view, dueAt: view.nextRunAt };
    });
  }

  /** When the next run is due, or null with none. */
  nextDue(): number | null {
    if (!this.table.exists()) return null;
    const r = this.sql.exec<Row>(`SELECT MIN(next_at) AS at FROM duet_schedules`).one();
    return r.at === null ? null : Number(r.at);
  }

  /** The room was deleted. */
  wipe(): void {
    if (this.table.exists()) this.sql.exec(`DELETE FROM duet_schedules`);
  }

  private count(): number {
    if (!this.table.exists()) return 0;
    return Number(this.sql.exec<Row>(`SELECT COUNT(*) AS n FROM duet_schedules`).one().n);
  }

  private rows(where: string, ...binds: SqlStorageValue[]): { view: ScheduleView; spec: ScheduleSpec }[] {
    if (!this.table.exists()) return [];
    return this.sql
      .exec<Row>(`SELECT * FROM duet_schedules ${where}`, ...binds)
      .toArray()
      .map((r) => ({
        spec: JSON.parse(String(r.spec)) as ScheduleSpec,
        view: {
          id: String(r.id),
          when: String(r.typed),
          ask: String(r.ask),
          userId: String(r.user_id),
          ...(r.user_name !== null ? { userName: String(r.user_name) } : {}),
          createdAt: Number(r.created_at),
          nextRunAt: Number(r.next_at),
          ...(r.target !== null ? { target: JSON.parse(String(r.target)) as DeliveryTarget } : {}),
        },
      }));
  }
}
