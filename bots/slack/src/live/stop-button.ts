import { stopClick, type StopTurn } from "@duet/shared";
import type { App, Logger } from "@slack/bolt";
import { clickedIn, clickSchema } from "../click.ts";
import { STOP_ACTION_ID } from "./live-blocks.ts";

/**
 * The Stop button on a live answer, in Slack: the click is read, the shared
 * stop-click flow decides (only a button of this conversation's room stops
 * anything), and its words go to the clicker only. Slack only shows the
 * button to people in the conversation.
 */
export function registerStopButton(app: App, deps: { stop: StopTurn; logger: Logger }, track: (p: Promise<void>) => Promise<void>): void {
  app.action(STOP_ACTION_ID, async ({ ack, body, respond }) => {
    await ack();
    await track(
      (async () => {
        const click = clickSchema.safeParse(body);
        if (!click.success) return deps.logger.warn(`Ignored a Stop click Slack sent without its user, team or channel`);
        const room = click.data.actions.find((a) => a.action_id === STOP_ACTION_ID)?.value ?? "";
        const text = await stopClick(deps.stop, (line) => deps.logger.warn(line), { room, user: click.data.user.id, here: clickedIn(room, click.data) });
        await respond({ response_type: "ephemeral", replace_original: false, text }).catch((err) => deps.logger.warn(`Could not tell ${click.data.user.id} about the Stop: ${String(err)}`));
      })(),
    );
  });
}
