import { scheduledRunFailedText, Span, type DeliveryTarget, type MessageRequest, type ScheduleRequest, type ScheduleView } from "@duet/shared";
import type { RoomControl } from "../control/room-control.ts";
import { outcomeOf, type Outcome } from "../outcome.ts";
import type { Outbox } from "../outbox/outbox.ts";
import type { DueRun, Schedules } from "../schedules/schedules.ts";
import { armAlarmBy } from "../storage/alarm.ts";
import { scheduleRunKey } from "../storage/schedule-run-key.ts";
import type { TurnLedger } from "../storage/turn-ledger.ts";
import { deliverColumn } from "../storage/delivery-rows.ts";
import type { RoomTracing } from "../tracing.ts";

/** What running a room's schedules needs from the room. */
export interface ScheduleParts {
  storage: DurableObjectStorage;
  schedules: Schedules;
  control: RoomControl;
  outbox: Outbox;
  /** The room's redactor: an ask is kept (and audited, and listed) as a question is, secrets removed. */
  redact: (text: string) => string;
  /** Puts an ask to the room as a turn, under its run policy, in its queue; the turn joins the trace `traceparent` names. */
  ask: (req: MessageRequest, traceparent: string) => Promise<Outcome>;
  /** Where a run that could not run keeps its notice for delivery. */
  ledger: TurnLedger;
  roomId: string;
  /** Where the room's spans go: each run is one trace under its `duet.schedule` span. */
  tracing: RoomTracing;
}

/**
 * A room's schedules at work: each change is written with its audit entry
 * (two rows, one transaction); the room's alarm, shared with its keep-awake
 * and its outbox, is armed for the next run. A due run is a turn like any
 * other, its answer kept for delivery to the schedule's channel as a new
 * message and offered to the platform's feed at once. A run that could not
 * run (the model down, a budget used up) is said there instead, once.
 */
export class ScheduledRuns {
  constructor(private readonly room: ScheduleParts) {}

  async add(req: ScheduleRequest & { ask: string }): Promise<ScheduleView> {
    const { schedules, control } = this.room;
    let view!: ScheduleView;
    this.room.storage.transactionSync(() => {
      view = schedules.add({ ...req, ask: this.room.redact(req.ask) });
      control.audit.record([{ at: view.createdAt, kind: "scheduled", scheduleId: view.id, when: view.when, ask: view.ask, requestedBy: view.userId }]);
    });
    await this.arm();
    return view;
  }

  remove(id: string, userId: string): ScheduleView {
    const { schedules, control } = this.room;
    let view!: ScheduleView;
    this.room.storage.transactionSync(() => {
      view = schedules.remove(id);
      control.audit.record([{ at: Date.now(), kind: "unscheduled", scheduleId: id, when: view.when, ask: view.ask, requestedBy: userId }]);
    });
    return view;
  }

  /**
   * The room's alarm fired (or a test drives time to `now`): asks every due
   * schedule's question as a turn, records the runs in one audit row, and
   * arms the alarm for the next.
   */
  async runDue(now = Date.now()): Promise<DueRun[]> {
    const { schedules, control } = this.room;
    let due: DueRun[] = [];
    this.room.storage.transactionSync(() => {
      due = schedules.takeDue(now);
      control.audit.record(due.map(({ schedule: s }) => ({ at: now, kind: "scheduled-run", scheduleId: s.id, when: s.when, ask: s.ask, requestedBy: s.userId })));
    });
    for (const run of due) this.start(run);
    await this.arm();
    return due;
  }

  /** Arms the room's alarm for the next run, if any is sooner than what it is armed for. */
  async arm(): Promise<void> {
    const next = this.room.schedules.nextDue();
    if (next !== null) await armAlarmBy(this.room.storage, next);
  }

  private start({ schedule, dueAt }: DueRun): void {
    const { target } = schedule;
    // The schedule's id in the place marks a scheduled answer: the bot posts it as a new message, and the outbox offers it at once.
    const deliver: DeliveryTarget | undefined = target && { platform: target.platform, place: { ...target.place, schedule: schedule.id } };
    // The due time in the key: an alarm that fires again for the same run joins that turn instead of asking twice.
    const key = scheduleRunKey(schedule.id, dueAt);
    const request: MessageRequest = { text: schedule.ask, userId: schedule.userId, idempotencyKey: key, ...(deliver ? { deliver } : {}) };
    // Nobody's message started the run: its span is the root of the run's trace, the turn and its delivery under it.
    const span = new Span(this.room.tracing.sink, "duet.schedule", null, {
      kind: "server",
      attributes: { "gen_ai.conversation.id": this.room.roomId, "duet.schedule.id": schedule.id, "duet.schedule.when": schedule.when, "duet.schedule.due_at": dueAt },
    });
    this.room
      .ask(request, span.traceparent)
      .catch(outcomeOf)
      .then(async (out) => {
        span.set({ "http.response.status_code": out.status });
        if (out.status !== 200) {
          span.fail(`not answered: HTTP ${out.status}`);
          console.error(`scheduled run ${schedule.id} was not answered (${out.status})`, out.body);
          // Nobody watches a scheduled run: its channel is told, once, in the run's own message. A deleted room is told nothing.
          if (!deliver || out.status === 404) return;
          const reason = (out.body as { error?: string } | null)?.error ?? "an internal error";
          keepForDelivery(this.room.ledger, { ...request, idempotencyKey: key, deliver }, this.room.redact(scheduledRunFailedText(schedule.id, reason, span.traceId)), span.traceparent);
        }
        if (deliver) await this.room.outbox.offerNow(deliver.platform);
      })
      .catch((err) => console.error(`scheduled run ${schedule.id} could not be offered for delivery`, err))
      .finally(() => {
        span.end();
        this.room.tracing.flush();
      });
  }
}

/**
 * An answer for a bot to post that is no turn of the conversation (a
 * scheduled run that could not run says so where its answer would have
 * gone; a note from GitHub about the room's pull request): kept under the request's key for delivery, out of the history and
 * the model's context. One row written. Its texts come redacted: this is
 * also how a room whose configuration is broken says so. `traceparent`: the
 * span it belongs to, so its delivery joins that trace.
 */
export function keepForDelivery(ledger: TurnLedger, req: MessageRequest & { idempotencyKey: string; deliver: DeliveryTarget }, reply: string, traceparent?: string): void {
  ledger.keep(
    { kind: "message", idemKey: req.idempotencyKey, userId: req.userId || null, question: req.text, receivedAt: Date.now(), deliver: deliverColumn(req.deliver, traceparent) },
    { reply, explanation: reply, runs: [] },
  );
}
