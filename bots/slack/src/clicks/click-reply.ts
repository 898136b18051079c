import type { ChatSurface, Reply } from "@duet/shared";
import type { App, Logger } from "@slack/bolt";
import { type Click, clickSchema } from "../click.ts";
import { renderReply } from "../render.ts";
import type { Block, SlackOut } from "../slack-api.ts";

/**
 * What every button click of Duet's on Slack does first and how it answers:
 * acknowledged at once (Slack's 3 s), then a click Slack sent without its
 * user, team, channel or message, or one whose button names another room or
 * carries a value this bot never sent, is refused (logged: there is no one
 * in this room to tell); any other is answered in the clicked message's
 * thread, privately to the clicker, or by editing the clicked message.
 * Each `what` names the click with its article ("a Run/Skip click").
 */

/** A click with its place: the workspace, the channel and the clicked message. */
export type PlacedClick = Click & { channel: { id: string }; message: NonNullable<Click["message"]>; team: { id: string; domain?: string } };

export interface ClickReplyDeps {
  out: SlackOut;
  logger: Logger;
}

/** Registers the buttons `actionIds` matches: each click acknowledged, refused when it has no place, else handed to `handle` (tracked). */
export function onClick(
  app: App,
  actionIds: RegExp,
  what: string,
  deps: Pick<ClickReplyDeps, "logger">,
  track: (p: Promise<void>) => Promise<void>,
  handle: (click: PlacedClick) => Promise<void>,
): void {
  app.action(actionIds, async ({ ack, body }) => {
    await ack();
    await track(
      (async () => {
        const click = clickSchema.safeParse(body);
        if (!click.success || !click.data.channel || !click.data.message || !click.data.team) {
          return deps.logger.warn(`Ignored ${what} Slack sent without its user, team, channel or message`);
        }
        await handle(click.data as PlacedClick);
      })(),
    );
  });
}

/** Refuses a click for another room or with an unknown button. */
export function refuseClick(deps: Pick<ClickReplyDeps, "logger">, what: string, click: PlacedClick): void {
  deps.logger.warn(`Ignored ${what} in ${click.team.id}/${click.channel.id} for another room or an unknown button`);
}

/** What the clicked message becomes for a reply (its text and blocks); null when the reply does not change it. */
export type ClickEdit = (reply: Reply) => { text: string; blocks: Block[] } | null;

/**
 * How a click answers: posts (and their files) in the message's thread, the
 * clicker's private lines, and edits of the clicked message. `room` names the
 * room for replies that show its buttons.
 */
export function clickSurface(deps: ClickReplyDeps, click: PlacedClick, edit: ClickEdit, room?: string): ChatSurface {
  const { channel, message, user } = click;
  const threadTs = message.thread_ts ?? message.ts;
  const render = (reply: Reply) => renderReply(reply, { place: "thread", ...(room ? { room } : {}) });
  return {
    async post(reply) {
      const r = render(reply);
      const ts = await deps.out.post(channel.id, r.text, r.blocks, threadTs);
      for (const upload of r.uploads) await deps.out.upload(channel.id, upload, threadTs);
      return ts ? { id: ts } : null;
    },
    async postPrivate(reply) {
      const r = render(reply);
      return (await deps.out.postEphemeral(channel.id, user.id, r.text, r.blocks, message.thread_ts)) ? { id: `ephemeral:${user.id}` } : null;
    },
    async edit(_ref, reply) {
      const next = edit(reply);
      return next ? deps.out.update(channel.id, message.ts, next.text, next.blocks) : false;
    },
    showProgress: () => async () => {},
  };
}
