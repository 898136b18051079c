import { APPROVAL_ID_PATTERN, decide, type FlowDeps, LatestShown } from "@duet/shared";
import type { App } from "@slack/bolt";
import { clickedIn } from "../click.ts";
import type { Block } from "../slack-api.ts";
import type { SlackAccess } from "../control/access.ts";
import { readApprovalValue, RUN_ACTION_ID, SKIP_ACTION_ID, withDecision } from "../control/approval-blocks.ts";
import { type ClickReplyDeps, clickSurface, onClick, refuseClick } from "./click-reply.ts";

/**
 * Run and Skip clicks on a proposal. Bolt has checked the request as it checks
 * every Slack request (signature and timestamp over HTTP, the app's own socket
 * in Socket Mode). A click whose button names a room that is not this
 * conversation's (another workspace, another channel) does nothing; otherwise
 * the shared decide flow checks who may, asks the Worker, and answers here.
 */

export interface ClickDeps extends ClickReplyDeps {
  flow: FlowDeps;
  access: SlackAccess;
}

const WHAT = "a Run/Skip click";

export function registerApprovalClicks(app: App, deps: ClickDeps, track: (p: Promise<void>) => Promise<void>): void {
  const latest = new LatestShown<Block[]>();

  onClick(app, new RegExp(`^(${RUN_ACTION_ID}|${SKIP_ACTION_ID})$`), WHAT, deps, track, async (click) => {
    const { user, channel, message, actions } = click;
    const action = actions.find((a) => a.action_id === RUN_ACTION_ID || a.action_id === SKIP_ACTION_ID)!;
    const ref = readApprovalValue(action.value);
    if (!ref || !APPROVAL_ID_PATTERN.test(ref.id) || !clickedIn(ref.room, click)) return refuseClick(deps, WHAT, click);
    const key = `${channel.id}/${message.ts}`;
    const surface = clickSurface(deps, click, (reply) => {
      if (reply.kind !== "decided") return null;
      const blocks = withDecision(latest.get(key) ?? (message.blocks as unknown as Block[]), reply.approval);
      latest.set(key, blocks);
      return { text: message.text || "Duet's proposed commands", blocks };
    });
    const asker = { room: ref.room, user: user.id, key: `${ref.id}:${user.id}`, permit: deps.access.permit(user.id) };
    await decide(deps.flow, surface, asker, { approvalId: ref.id, decision: action.action_id === RUN_ACTION_ID ? "run" : "skip", message: { id: message.ts } });
  });
}
