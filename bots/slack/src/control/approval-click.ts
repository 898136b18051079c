import { APPROVAL_ID_PATTERN, type ChatSurface, decide, type FlowDeps, LatestShown, type Reply } from "@duet/shared";
import type { App, Logger } from "@slack/bolt";
import { clickedIn, clickSchema } from "../click.ts";
import { renderReply } from "../render.ts";
import type { Block, SlackOut } from "../slack-api.ts";
import type { SlackAccess } from "./access.ts";
import { readApprovalValue, RUN_ACTION_ID, SKIP_ACTION_ID, withDecision } from "./approval-blocks.ts";

/**
 * Run and Skip clicks on a proposal. Bolt has checked the request as it checks
 * every Slack request (signature and timestamp over HTTP, the app's own socket
 * in Socket Mode). A click whose button names a room that is not this
 * conversation's (another workspace, another channel) does nothing; otherwise
 * the shared decide flow checks who may, asks the Worker, and answers here.
 */

export interface ClickDeps {
  flow: FlowDeps;
  out: SlackOut;
  access: SlackAccess;
  logger: Logger;
}

export function registerApprovalClicks(app: App, deps: ClickDeps, track: (p: Promise<void>) => Promise<void>): void {
  const latest = new LatestShown<Block[]>();

  app.action(new RegExp(`^(${RUN_ACTION_ID}|${SKIP_ACTION_ID})$`), async ({ ack, body }) => {
    await ack();
    await track(
      (async () => {
        const click = clickSchema.safeParse(body);
        if (!click.success || !click.data.channel || !click.data.message || !click.data.team) {
          return deps.logger.warn("Ignored a Run/Skip click Slack sent without its user, team, channel or message");
        }
        const { user, team, channel, message, actions } = click.data;
        const action = actions.find((a) => a.action_id === RUN_ACTION_ID || a.action_id === SKIP_ACTION_ID)!;
        const ref = readApprovalValue(action.value);
        if (!ref || !APPROVAL_ID_PATTERN.test(ref.id) || !clickedIn(ref.room, click.data)) {
          return deps.logger.warn(`Ignored a Run/Skip click in ${team.id}/${channel.id} for another room or an unknown button`);
        }
        const key = `${channel.id}/${message.ts}`;
        const threadTs = message.thread_ts ?? message.ts;
        const surface: ChatSurface = {
          async post(reply) {
            const r = renderReply(reply, { place: "thread" });
            const ts = await deps.out.post(channel.id, r.text, r.blocks, threadTs);
            for (const upload of r.uploads) await deps.out.upload(channel.id, upload, threadTs);
            return ts ? { id: ts } : null;
          },
          async postPrivate(reply) {
            const r = renderReply(reply, { place: "thread" });
            return (await deps.out.postEphemeral(channel.id, user.id, r.text, r.blocks, message.thread_ts)) ? { id: `ephemeral:${user.id}` } : null;
          },
          async edit(_ref, reply: Reply) {
            if (reply.kind !== "decided") return false;
            const blocks = withDecision(latest.get(key) ?? (message.blocks as unknown as Block[]), reply.approval);
            latest.set(key, blocks);
            return deps.out.update(channel.id, message.ts, message.text || "Duet's proposed commands", blocks);
          },
          showProgress: () => async () => {},
        };
        const asker = { room: ref.room, user: user.id, key: `${ref.id}:${user.id}`, permit: deps.access.permit(user.id) };
        await decide(deps.flow, surface, asker, { approvalId: ref.id, decision: action.action_id === RUN_ACTION_ID ? "run" : "skip", message: { id: message.ts } });
      })(),
    );
  });
}
