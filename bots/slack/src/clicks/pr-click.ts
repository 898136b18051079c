import { type FlowDeps, LatestShown, prClick, PR_PROPOSAL_ID_PATTERN, PR_WORDS } from "@duet/shared";
import type { App } from "@slack/bolt";
import { clickedIn, type Click } from "../click.ts";
import type { Block } from "../slack-api.ts";
import type { SlackAccess } from "../control/access.ts";
import { type ClickReplyDeps, clickSurface, onClick, refuseClick } from "./click-reply.ts";
import { PR_OPEN_ACTION_ID, PR_SKIP_ACTION_ID, readPrValue, withPrDecision } from "../control/pr-blocks.ts";

/**
 * Open and Skip clicks on a pull request proposal. As with Run and Skip, a
 * click whose button names a room that is not this conversation's does
 * nothing; otherwise the shared prClick flow checks who may (by the room's
 * run policy), asks the Worker, and answers here.
 */

export interface PrClickDeps extends ClickReplyDeps {
  flow: FlowDeps;
  access: SlackAccess;
}

const WHAT = "an Open/Skip click";

/** The thread's permalink, built as Slack builds it (the workspace's domain, the channel, the ts without its dot); null without a domain. */
export function threadUrlOf(click: Click): string | undefined {
  const domain = click.team?.domain;
  const ts = click.message?.thread_ts ?? click.message?.ts;
  if (!domain || !/^[a-z0-9-]{1,63}$/.test(domain) || !click.channel || !ts || !/^\d+\.\d+$/.test(ts)) return undefined;
  return `https://${domain}.slack.com/archives/${click.channel.id}/p${ts.replace(".", "")}`;
}

export function registerPrClicks(app: App, deps: PrClickDeps, track: (p: Promise<void>) => Promise<void>): void {
  const latest = new LatestShown<Block[]>();

  onClick(app, new RegExp(`^(${PR_OPEN_ACTION_ID}|${PR_SKIP_ACTION_ID})$`), WHAT, deps, track, async (click) => {
    const { user, channel, message, actions } = click;
    const action = actions.find((a) => a.action_id === PR_OPEN_ACTION_ID || a.action_id === PR_SKIP_ACTION_ID)!;
    const ref = readPrValue(action.value);
    if (!ref || !PR_PROPOSAL_ID_PATTERN.test(ref.id) || !clickedIn(ref.room, click)) return refuseClick(deps, WHAT, click);
    const key = `${channel.id}/${message.ts}`;
    const surface = clickSurface(deps, click, (reply) => {
      if (reply.kind !== "pr-decided") return null;
      const decision = reply.opened ? { opened: reply.opened, by: reply.by } : { skippedBy: reply.by };
      const blocks = withPrDecision(latest.get(key) ?? (message.blocks as unknown as Block[]), reply.proposalId, decision);
      latest.set(key, blocks);
      return { text: message.text || PR_WORDS.fallback, blocks };
    });
    const asker = { room: ref.room, user: user.id, key: `${ref.id}:${user.id}`, permit: deps.access.permit(user.id) };
    const threadUrl = threadUrlOf(click);
    await prClick(deps.flow, surface, asker, {
      proposalId: ref.id,
      decision: action.action_id === PR_OPEN_ACTION_ID ? "open" : "skip",
      message: { id: message.ts },
      ...(threadUrl ? { threadUrl } : {}),
    });
  });
}
