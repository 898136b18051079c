import { z } from "zod";
import { actorField } from "./person-fields.ts";
import { budgetSchema, runPolicySchema } from "./schemas.ts";

/**
 * A workspace's rooms as its home view shows them (Slack's App Home): the
 * Worker lists them from the workspace room's index of its channel rooms, so
 * every bot replica draws the same view from the same answer.
 */

/** Most channels a bot may name in one listing (a person in more sees the first ones, and "and N more"). */
export const HOME_CHANNELS_MAX = 5_000;
/** Most rooms listed with their settings in one answer: each is one call to that room. */
export const HOME_ROOMS_MAX = 50;

/** A channel id as the platforms write them (Slack's `C0123`, Discord's snowflakes). */
const channelIdField = z.string().regex(/^[A-Za-z0-9._]{1,80}$/, "Channel ids must be 1-80 characters of A-Z, a-z, 0-9, '.' or '_'");

export const roomListRequestSchema = z.object({
  userId: actorField,
  /** Only the rooms of these channels (the ones the person is in); absent: every channel room. */
  channels: z.array(channelIdField).max(HOME_CHANNELS_MAX, `At most ${HOME_CHANNELS_MAX} channels`).optional(),
  /** How many rooms to list with their settings (the rest are only counted). */
  limit: z.number().int().min(1).max(HOME_ROOMS_MAX).optional(),
});
export type RoomListRequest = z.input<typeof roomListRequestSchema>;

/** One channel room with its settings, and what the asking person used there today. */
export const roomSummarySchema = z.object({
  roomId: z.string(),
  /** The channel id (the room id's last part). */
  channel: z.string(),
  runPolicy: runPolicySchema,
  model: z.string(),
  repo: z.object({ repo: z.string(), branch: z.string().nullable() }).nullable(),
  schedules: z.array(z.object({ id: z.string(), when: z.string(), ask: z.string(), nextRunAt: z.number() })),
  /** The person's model tokens today in this room and its threads, and what the priced ones cost (US dollars). */
  usedToday: z.object({ tokens: z.number(), costUsd: z.number() }),
});
export type RoomSummary = z.infer<typeof roomSummarySchema>;

export const roomListResponseSchema = z.object({
  rooms: z.array(roomSummarySchema),
  /** Rooms that matched but are not listed (past `limit`, or that could not be asked). */
  more: z.number(),
  /** The models a room may switch to, and the default one. */
  models: z.object({ choices: z.array(z.string()), default: z.string() }),
  /**
   * The person's use today: across the workspace when a per-person budget
   * counts it (`where` says so), else added up from the listed rooms.
   */
  you: z.object({ tokens: z.number(), costUsd: z.number(), where: z.string() }),
  /** The daily budgets that are set: the person's (with what is left) and each room's limit. */
  budgets: z.object({ user: budgetSchema.optional(), userUsd: budgetSchema.optional(), room: budgetSchema.optional(), roomUsd: budgetSchema.optional() }),
  resetsAt: z.number(),
});
export type RoomListResponse = z.infer<typeof roomListResponseSchema>;
