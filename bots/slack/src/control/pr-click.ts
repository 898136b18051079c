import { type ChatSurface, type FlowDeps, LatestShown, prClick, PR_PROPOSAL_ID_PATTERN, PR_WORDS, type Reply } from "@duet/shared";
import type { App, Logger } from "@slack/bolt";
import { clickedIn, clickSchema, type Click } from "../click.ts";
import { renderReply } from "../render.ts";
import type { Block, SlackOut } from "../slack-api.ts";
import type { SlackAccess } from "./access.ts";
import { PR_OPEN_ACTION_ID, PR_SKIP_ACTION_ID, readPrValue, withPrDecision } from "./pr-blocks.ts";

/**
 * Open and Skip clicks on a pull request proposal. As with Run and Skip, a
 * click whose button names a room that is not this conversation's does
 * nothing; otherwise the shared prClick flow checks who may (by the room's
 * run policy), asks the Worker, and answers here.
 */

export interface PrClickDeps {
  flow: FlowDeps;
  out: SlackOut;
  access: SlackAccess;
  logger: Logger;
}

/** The thread's permalink, built as Slack builds it (the workspace's domain, the channel, the ts without its dot); null without a domain. */
export function threadUrlOf(click: Click): string | undefined {
  const domain = click.team?.domain;
  const ts = click.message?.thread_ts ?? click.message?.ts;
  if (!domain || !/^[a-z0-9-]{1,63}$/.test(domain) || !click.channel || !ts || !/^\d+\.\d+$/.test(ts)) return undefined;
  return `https://${domain}.slack.com/archives/${click.channel.id}/p${ts.replace(".", "")}`;
}

export function registerPrClicks(app: App, deps: PrClickDeps, track: (p: Promise<void>) => Promise<void>): void {
  const latest = new LatestShown<Block[]>();

  app.action(new RegExp(`^(${PR_OPEN_ACTION_ID}|${PR_SKIP_ACTION_ID})$`), async ({ ack, body }) => {
    await ack();
    await track(
      (async () => {
        const click = clickSchema.safeParse(body);
        if (!click.success || !click.data.channel || !click.data.message || !click.data.team) {
          return deps.logger.warn("Ignored an Open/Skip click Slack sent without its user, team, channel or message");
        }
        const { user, channel, message, actions } = click.data;
        const action = actions.find((a) => a.action_id === PR_OPEN_ACTION_ID || a.action_id === PR_SKIP_ACTION_ID)!;
        const ref = readPrValue(action.value);
        if (!ref || !PR_PROPOSAL_ID_PATTERN.test(ref.id) || !clickedIn(ref.room, click.data)) {
          return deps.logger.warn(`Ignored an Open/Skip click in ${click.data.team.id}/${channel.id} for another room or an unknown button`);
        }
        const key = `${channel.id}/${message.ts}`;
        const threadTs = message.thread_ts ?? message.ts;
        const surface: ChatSurface = {
          async post(reply) {
            const r = renderReply(reply, { place: "thread" });
            const ts = await deps.out.post(channel.id, r.text, r.blocks, threadTs);
            return ts ? { id: ts } : null;
          },
          async postPrivate(reply) {
            const r = renderReply(reply, { place: "thread" });
            return (await deps.out.postEphemeral(channel.id, user.id, r.text, r.blocks, message.thread_ts)) ? { id: `ephemeral:${user.id}` } : null;
          },
          async edit(_ref, reply: Reply) {
            if (reply.kind !== "pr-decided") return false;
            const decision = reply.opened ? { opened: reply.opened, by: reply.by } : { skippedBy: reply.by };
            const blocks = withPrDecision(latest.get(key) ?? (message.blocks as unknown as Block[]), reply.proposalId, decision);
            latest.set(key, blocks);
            return deps.out.update(channel.id, message.ts, message.text || PR_WORDS.fallback, blocks);
          },
          showProgress: () => async () => {},
        };
        const asker = { room: ref.room, user: user.id, key: `${ref.id}:${user.id}`, permit: deps.access.permit(user.id) };
        const threadUrl = threadUrlOf(click.data);
        await prClick(deps.flow, surface, asker, {
          proposalId: ref.id,
          decision: action.action_id === PR_OPEN_ACTION_ID ? "open" : "skip",
          message: { id: message.ts },
          ...(threadUrl ? { threadUrl } : {}),
        });
      })(),
    );
  });
}
