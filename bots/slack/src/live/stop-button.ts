import { STOP_WORDS, type StopTurn } from "@duet/shared";
import type { App, Logger } from "@slack/bolt";
import { z } from "zod";
import { channelRoom } from "../rooms.ts";
import { STOP_ACTION_ID } from "./live-blocks.ts";

/**
 * The Stop button on a live answer: whoever clicks it stops the room's running
 * turn. Slack only shows the button to people in the conversation, and the room
 * named by the button must be that conversation's (its channel room or one of
 * its thread rooms), so a click can never stop another room's turn. The clicker
 * is told, privately, whether there was a turn to stop.
 */


const clickSchema = z.object({
  user: z.object({ id: z.string().min(1) }),
  team: z.object({ id: z.string().min(1) }).nullable().optional(),
  channel: z.object({ id: z.string().min(1) }).optional(),
  actions: z.array(z.object({ action_id: z.string(), value: z.string().optional() })).min(1),
});


/** True when `room` is the channel's room or one of its thread rooms. */
export function isRoomOf(room: string, teamId: string, channel: string): boolean {
  const base = channelRoom(teamId, channel);
  return room === base || room.startsWith(`${base}-`);
}

export function registerStopButton(app: App, deps: { stop: StopTurn; logger: Logger }, track: (p: Promise<void>) => Promise<void>): void {
  app.action(STOP_ACTION_ID, async ({ ack, body, respond }) => {
    await ack();
    await track(
      (async () => {
        const click = clickSchema.safeParse(body);
        if (!click.success) return deps.logger.warn(`Ignored a Stop click Slack sent without its user, team or channel`);
        const { user, team, channel, actions } = click.data;
        const room = actions.find((a) => a.action_id === STOP_ACTION_ID)?.value ?? "";
        let text: string;
        if (!team || !channel || !isRoomOf(room, team.id, channel.id)) {
          deps.logger.warn(`Ignored a Stop click in ${channel?.id ?? "an unknown channel"} for another room (${room.slice(0, 80)})`);
          text = STOP_WORDS.notThisRoom;
        } else {
          try {
            text = (await deps.stop(room, user.id)).stopped ? STOP_WORDS.stopping : STOP_WORDS.nothingToStop;
          } catch (err) {
            deps.logger.warn(`Stop in ${room} failed: ${(err as Error).message}`);
            text = `:warning: Duet could not stop that answer: ${(err as Error).message}`;
          }
        }
        await respond({ response_type: "ephemeral", replace_original: false, text }).catch((err) => deps.logger.warn(`Could not tell ${user.id} about the Stop: ${String(err)}`));
      })(),
    );
  });
}
