import { type DeliveryItem, describeSchedule, type ScheduleView, scheduledRunHeading, scheduledText, schedulesTitle, unscheduledText } from "@duet/shared";
import { naming } from "./render-control.ts";

/** Schedules as Discord text: who scheduled what (to the channel), and the list (to the asker). */

export function renderScheduled(s: ScheduleView, by: string, secrets: readonly string[]): string {
  return `⏰ ${scheduledText(s, by, naming(secrets))}`;
}

export function renderUnscheduled(s: ScheduleView, by: string, secrets: readonly string[]): string {
  return `🗑️ ${unscheduledText(s, by, naming(secrets))}`;
}

export function renderSchedules(schedules: ScheduleView[], secrets: readonly string[]): string {
  return [`**${schedulesTitle(schedules.length)}**`, ...schedules.map((s) => `• ${describeSchedule(s, naming(secrets))}`)].join("\n");
}

/** The line above a scheduled run's answer, a new message in the channel: which schedule asked what, and whose it is. */
export function scheduledRunLine(item: DeliveryItem, secrets: readonly string[]): string | null {
  const id = item.deliver.place.schedule;
  return id ? scheduledRunHeading(id, item.userId, item.question, naming(secrets)) : null;
}
