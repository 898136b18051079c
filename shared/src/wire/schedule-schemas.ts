import { z } from "zod";
import { deliveryTargetSchema } from "./delivery-target.ts";
import { sanitizeChatText } from "../text/sanitize.ts";
import { TEXT_MAX_CHARS } from "./limits.ts";
import { actorField, userNameField } from "./person-fields.ts";
import { WHEN_MAX_CHARS } from "./schedule-when.ts";

/** The wire of `/api/rooms/:roomId/schedules`: asks a room runs on its own, on a schedule. */

/** A schedule's id as people type it in `/duet unschedule <id>`: short, lower-case letters and digits. */
export const SCHEDULE_ID_PATTERN = /^[a-z0-9]{1,32}$/;

export const scheduleRequestSchema = z.object({
  /** `every 30m`, `every weekday 09:00 Europe/Berlin`, a cron line: read by the Worker (schedule-when.ts). */
  when: z
    .string({ error: "When must be a string" })
    .trim()
    .min(1, "When cannot be empty")
    .max(WHEN_MAX_CHARS, `When must be at most ${WHEN_MAX_CHARS} characters`),
  ask: z
    .string({ error: "Ask must be a string" })
    .transform(sanitizeChatText)
    .refine((t) => t.length > 0, "Ask cannot be empty")
    .refine((t) => t.length <= TEXT_MAX_CHARS, `Ask must be at most ${TEXT_MAX_CHARS} characters`),
  userId: actorField,
  userName: userNameField,
  /** Where each run's answer is posted, as a new message (the outbox delivers it); absent, answers stay in the room's history. */
  target: deliveryTargetSchema.optional(),
});
export type ScheduleRequest = z.input<typeof scheduleRequestSchema>;

export const unscheduleRequestSchema = z.object({ userId: actorField });
export type UnscheduleRequest = z.input<typeof unscheduleRequestSchema>;

export const scheduleViewSchema = z.object({
  id: z.string(),
  /** As it was typed. */
  when: z.string(),
  ask: z.string(),
  userId: z.string(),
  userName: z.string().optional(),
  createdAt: z.number(),
  nextRunAt: z.number(),
  target: deliveryTargetSchema.optional(),
});
export type ScheduleView = z.infer<typeof scheduleViewSchema>;

export const scheduleResponseSchema = z.object({ schedule: scheduleViewSchema });
export type ScheduleResponse = z.infer<typeof scheduleResponseSchema>;
export const schedulesResponseSchema = z.object({ schedules: z.array(scheduleViewSchema) });
export type SchedulesResponse = z.infer<typeof schedulesResponseSchema>;
