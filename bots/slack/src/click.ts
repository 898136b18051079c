import { isRoomOf } from "@duet/shared";
import { z } from "zod";
import { channelRoom } from "./rooms.ts";

/**
 * A button click as Slack sends it (block_actions), for every button Duet
 * shows: Stop on a live answer, Run and Skip on a proposal. The button's value
 * names a room; only a click in that room's conversation acts on it.
 */
export const clickSchema = z.object({
  user: z.object({ id: z.string().min(1) }),
  team: z.object({ id: z.string().min(1), domain: z.string().optional() }).nullable().optional(),
  channel: z.object({ id: z.string().min(1) }).optional(),
  message: z
    .object({ ts: z.string().min(1), thread_ts: z.string().optional(), text: z.string().default(""), blocks: z.array(z.record(z.string(), z.unknown())).default([]) })
    .optional(),
  actions: z.array(z.object({ action_id: z.string(), value: z.string().optional() })).min(1),
});

export type Click = z.infer<typeof clickSchema>;

/** True when `room` is the room of the conversation the click came from (its channel's, or a thread's in it). */
export function clickedIn(room: string, click: Click): boolean {
  return Boolean(click.team && click.channel && isRoomOf(room, channelRoom(click.team.id, click.channel.id)));
}
