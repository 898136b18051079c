import type { ScheduleView } from "../schedule-schemas.ts";
import { shortCommand, type Naming } from "./control.ts";

/** Schedules in words every front end shares; each passes how it names a person and shows an ask. */

function when(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** One schedule as one line: its id, when, the next run, who set it, what it asks. */
export function describeSchedule(s: ScheduleView, name: Naming): string {
  return `${name.command(s.id)} · ${name.command(s.when)} · next ${when(s.nextRunAt)} · set by ${name.person(s.userId)}: ${name.command(shortCommand(s.ask))}`;
}

export function schedulesTitle(count: number): string {
  return count === 0
    ? "No schedules in this room. Add one with `/duet schedule <when> <ask>`."
    : `Schedules in this room (${count}), soonest first; remove one with \`/duet unschedule <id>\`:`;
}

/** Said to the channel when someone schedules an ask. */
export function scheduledText(s: ScheduleView, by: string, name: Naming): string {
  return `${name.person(by)} scheduled ${name.command(shortCommand(s.ask))} (${name.command(s.when)}); first run ${when(s.nextRunAt)}, its answer a new message here. Id ${name.command(s.id)}.`;
}

export function unscheduledText(s: ScheduleView, by: string, name: Naming): string {
  return `${name.person(by)} removed schedule ${name.command(s.id)} (${name.command(s.when)}): ${name.command(shortCommand(s.ask))}.`;
}

/** The line above a scheduled run's answer: it was nobody's message just now, so it says whose schedule asked. */
export function scheduledRunHeading(scheduleId: string, userId: string | null, ask: string, name: Naming): string {
  return `⏰ Scheduled ask ${name.command(scheduleId)}${userId ? ` by ${name.person(userId)}` : ""}: ${name.command(shortCommand(ask))}`;
}

/** What a scheduled run's own message says when the run could not happen (the model down, a budget used up, the room full). */
export function scheduledRunFailedText(scheduleId: string, reason: string): string {
  return `⚠️ The scheduled ask \`${scheduleId}\` could not run: ${reason.replace(/\.?$/, ".")}`;
}
