import type { ScheduleView } from "../wire/schedule-schemas.ts";
import { duetCommand, shortCommand, type Naming } from "./control.ts";
import { traceRef } from "../trace/traceparent.ts";

/** Schedules in words every front end shares; each passes how it names a person and shows an ask. */

function when(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** One schedule as one line: its id, when, the next run, who set it, what it asks. */
export function describeSchedule(s: ScheduleView, name: Naming): string {
  return `${name.command(s.id)} · ${name.command(s.when)} · next ${when(s.nextRunAt)} · set by ${name.person(s.userId)}: ${name.command(shortCommand(s.ask))}`;
}

export function schedulesTitle(count: number, name: Naming): string {
  return count === 0
    ? `No schedules in this room. Add one with ${duetCommand(name, "schedule <when> <ask>")}.`
    : `Schedules in this room (${count}), soonest first; remove one with ${duetCommand(name, "unschedule <id>")}:`;
}

/**
 * Said to the channel when someone schedules an ask. A schedule with a channel
 * to post in answers there; one without (a terminal's room) keeps its answers in
 * the room's history, and says how to read it.
 */
export function scheduledText(s: ScheduleView, by: string, name: Naming): string {
  const where = s.target ? "its answer a new message here" : `its answer kept in the room's history (${duetCommand(name, "history")})`;
  return `${name.person(by)} scheduled ${name.command(shortCommand(s.ask))} (${name.command(s.when)}); first run ${when(s.nextRunAt)}, ${where}. Id ${name.command(s.id)}.`;
}

export function unscheduledText(s: ScheduleView, by: string, name: Naming): string {
  return `${name.person(by)} removed schedule ${name.command(s.id)} (${name.command(s.when)}): ${name.command(shortCommand(s.ask))}.`;
}

/** The line above a scheduled run's answer: it was nobody's message just now, so it says whose schedule asked. */
export function scheduledRunHeading(scheduleId: string, userId: string | null, ask: string, name: Naming): string {
  return `⏰ Scheduled ask ${name.command(scheduleId)}${userId ? ` by ${name.person(userId)}` : ""}: ${name.command(shortCommand(ask))}`;
}

/**
 * What a scheduled run's own message says when the run could not happen (the
 * model down, a budget used up, the room full), ending with the run's trace
 * ref when it has one, as every error a person sees does.
 */
export function scheduledRunFailedText(scheduleId: string, reason: string, traceId?: string): string {
  return `⚠️ The scheduled ask \`${scheduleId}\` could not run: ${reason.replace(/\.?$/, ".")}${traceId ? ` (${traceRef(traceId)})` : ""}`;
}
