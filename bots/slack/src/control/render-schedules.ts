import { chunkMessage, describeSchedule, type DeliveryItem, type ScheduleView, scheduledRunHeading, scheduledText, schedulesTitle, unscheduledText } from "@duet/shared";
import { context, SECTION_MAX_CHARS, section } from "../run-block.ts";
import type { Block } from "../slack-api.ts";
import { type Rendered, renderNotice } from "../rendered.ts";
import { NAMING } from "./render-control.ts";

/** Schedules as Slack messages: who scheduled what (to the channel), and the list (to the asker). */

export function renderScheduled(s: ScheduleView, by: string): Rendered {
  return renderNotice(`:alarm_clock: ${scheduledText(s, by, NAMING)}`);
}

export function renderUnscheduled(s: ScheduleView, by: string): Rendered {
  return renderNotice(`:wastebasket: ${unscheduledText(s, by, NAMING)}`);
}

export function renderSchedules(schedules: ScheduleView[]): Rendered {
  const title = schedulesTitle(schedules.length, NAMING);
  const lines = schedules.map((s) => `• ${describeSchedule(s, NAMING)}`);
  const blocks = chunkMessage([`*${title}*`, ...lines].join("\n"), SECTION_MAX_CHARS).map(section);
  return { text: title, blocks, uploads: [] };
}

/** Above a scheduled run's answer, a new message in the channel: which schedule asked what, and whose it is. */
export function scheduledRunBlock(item: DeliveryItem): Block | null {
  const id = item.deliver.place.schedule;
  return id ? context(scheduledRunHeading(id, item.userId, item.question, NAMING)) : null;
}
