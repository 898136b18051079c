import { type DeliveryItem, type DeliveryTarget, type FlowDeps, proposeDelivered } from "@duet/shared";
import { showDone, type ThreadStatus } from "./feedback.ts";
import { currentWorkspace } from "./oauth/workspace-client.ts";
import { scheduledRunBlock } from "./control/render-schedules.ts";
import { MAX_BLOCKS, renderReply } from "./render.ts";
import type { SlackOut } from "./slack-api.ts";
import { conversationSurface } from "./surfaces.ts";

/**
 * Where a Slack answer goes, as the room keeps it: the conversation, its
 * thread, the asker's message (for ✅; a slash command has none), whether it
 * is an agent-pane conversation (which a delivered answer titles too), and
 * under OAuth the workspace whose token posts it (the org's, for an org-wide install).
 */
export function slackTarget(place: { channel: string; threadTs?: string; ts?: string; pane?: boolean }): DeliveryTarget {
  const ws = currentWorkspace();
  const workspace = ws?.teamId ? { team: ws.teamId, ...(ws.enterpriseId ? { enterprise: ws.enterpriseId } : {}) } : {};
  const pane: Record<string, string> = place.pane ? { pane: "1" } : {};
  return { platform: "slack", place: { channel: place.channel, ...(place.ts ? { ts: place.ts } : {}), ...(place.threadTs ? { threadTs: place.threadTs } : {}), ...pane, ...workspace } };
}

/**
 * Delivers an answer the room kept (its bot died or lost the Worker): edits the
 * message posted for it before (a live answer's ts, its stream ended first),
 * else posts it in the thread; then the asker's message gets its ✅ and the
 * thread status ends.
 */
export async function deliverToSlack(out: SlackOut, status: ThreadStatus, item: DeliveryItem): Promise<string | null> {
  const { channel, threadTs, ts } = item.deliver.place;
  if (!channel) return null;
  // Without the asker's message (a slash command's answer) the answer names who asked, as a slash answer does.
  const r = renderReply({ kind: "answer", answer: item.answer, question: item.question, user: item.userId ?? "" }, { place: ts ? "thread" : "slash", room: item.roomId });
  // A scheduled run's answer is a new message in the channel (no thread in its place): it says which schedule asked.
  const heading = scheduledRunBlock(item);
  const blocks = heading ? [heading, ...r.blocks].slice(0, MAX_BLOCKS) : r.blocks;
  let posted: string | null = null;
  if (item.messageId) {
    // A live answer's message may still be a stream its bot never stopped: `replace` ends it only then.
    if (await out.replace(channel, item.messageId, r.text, blocks)) posted = item.messageId;
  }
  else posted = await out.post(channel, r.text, blocks, threadTs);
  if (!posted) return null;
  for (const upload of r.uploads) await out.upload(channel, upload, threadTs);
  await status.clear(channel, threadTs);
  if (ts) await showDone(out, { channel, ts }, true);
  return posted;
}

/**
 * The change of a delivered answer that ended with the model's `<pr>`,
 * proposed in the thread the answer went to, with its Open and Skip buttons,
 * as after a live answer.
 */
export async function proposeInSlack(out: SlackOut, status: ThreadStatus, flow: FlowDeps, item: DeliveryItem): Promise<void> {
  const { channel, threadTs } = item.deliver.place;
  if (!channel) return;
  await proposeDelivered(flow, conversationSurface(out, status.at(channel, threadTs), { channel, threadTs, user: item.userId ?? "", room: item.roomId }), item);
}
