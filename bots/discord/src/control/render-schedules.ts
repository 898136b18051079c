import { type DeliveryItem, describeSchedule, type ScheduleView, scheduledRunHeading, scheduledText, schedulesTitle, unscheduledText } from "@duet/shared";
import { NAMING } from "./render-control.ts";

/** Schedules as Discord text: who scheduled what (to the channel), and the list (to the asker). */

export function renderScheduled(s: ScheduleView, by: string): string {
  return `⏰ ${scheduledText(s, by, NAMING)}`;
}

export function renderUnscheduled(s: ScheduleView, by: string): string {
  return `🗑️ ${unscheduledText(s, by, NAMING)}`;
}

export function renderSchedules(schedules: ScheduleView[]): string {
  return [`**${schedulesTitle(schedules.length, NAMING)}**`, ...schedules.map((s) => `• ${describeSchedule(s, NAMING)}`)].join("\n");
}

/** The line above a scheduled run's answer, a new message in the channel: which schedule asked what, and whose it is. */
export function scheduledRunLine(item: DeliveryItem): string | null {
  const id = item.deliver.place.schedule;
  return id ? scheduledRunHeading(id, item.userId, item.question, NAMING) : null;
}
