import type { DeliveryItem, DeliveryTarget } from "@duet/shared";
import { showDone, type ThreadStatus } from "./feedback.ts";
import { scheduledRunBlock } from "./control/render-schedules.ts";
import { MAX_BLOCKS, renderReply } from "./render.ts";
import type { SlackOut } from "./slack-api.ts";

/** Where a Slack answer goes, as the room keeps it: the conversation, its thread, the asker's message (for ✅). */
export function slackTarget(place: { channel: string; threadTs?: string; ts: string }): DeliveryTarget {
  return { platform: "slack", place: { channel: place.channel, ts: place.ts, ...(place.threadTs ? { threadTs: place.threadTs } : {}) } };
}

/**
 * Delivers an answer the room kept (its bot died or lost the Worker): edits the
 * message posted for it before (a live answer's ts), else posts it in the
 * thread; then the asker's message gets its ✅ and the thread status ends.
 */
export async function deliverToSlack(out: SlackOut, status: ThreadStatus, secrets: readonly string[], item: DeliveryItem): Promise<string | null> {
  const { channel, threadTs, ts } = item.deliver.place;
  if (!channel) return null;
  const r = renderReply({ kind: "answer", answer: item.answer, question: item.question, user: item.userId ?? "" }, { secrets, place: "thread", room: item.roomId });
  // A scheduled run's answer is a new message in the channel (no thread in its place): it says which schedule asked.
  const heading = scheduledRunBlock(item, secrets);
  const blocks = heading ? [heading, ...r.blocks].slice(0, MAX_BLOCKS) : r.blocks;
  let posted: string | null = null;
  if (item.messageId && (await out.update(channel, item.messageId, r.text, blocks))) posted = item.messageId;
  else posted = await out.post(channel, r.text, blocks, threadTs);
  if (!posted) return null;
  for (const upload of r.uploads) await out.upload(channel, upload, threadTs);
  await status.clear(channel, threadTs);
  if (ts) await showDone(out, { channel, ts }, true);
  return posted;
}
