import { type DeliveryItem, PANE_WORDS } from "@duet/shared";
import type { Logger, webApi } from "@slack/bolt";
import { slackErrorCode } from "../slack-api.ts";

/**
 * An agent-pane conversation's title, from its first ask. Slack keeps the
 * thread, so whether this message is the first a person wrote in it is asked
 * of Slack (conversations.replies): every replica and every restart reads the
 * same answer, and a second ask never renames the conversation.
 */

/** The first messages of a thread are enough to find its first ask (Slack's root, the ask, Duet's answer). */
const FIRST_MESSAGES = 10;

export interface AskInThread {
  channel: string;
  threadTs: string;
  /** The ask's own ts. */
  ts: string;
  /** The ask as plain text. */
  text: string;
}

export async function titleFromFirstAsk(client: webApi.WebClient, setTitle: (title: string) => Promise<unknown>, ask: AskInThread, logger: Logger): Promise<void> {
  const title = PANE_WORDS.title(ask.text);
  if (!title) return;
  try {
    const res = await client.conversations.replies({ channel: ask.channel, ts: ask.threadTs, limit: FIRST_MESSAGES });
    // Slack's root of the conversation is in the person's name too (subtype assistant_app_thread); their asks have no subtype.
    const first = res.messages?.find((m) => m.ts !== ask.threadTs && m.user && !m.bot_id && !(m as { subtype?: string }).subtype);
    if (first?.ts !== ask.ts) return;
    await setTitle(title);
  } catch (err) {
    logger.warn(`The agent pane conversation ${ask.channel}/${ask.threadTs} could not be titled: ${slackErrorCode(err)}`);
  }
}

/**
 * An agent-pane answer the room's outbox delivered (its bot died or lost the
 * Worker before the answer): the conversation is titled from its ask as a
 * live answer's would be, when that ask was the conversation's first.
 */
export async function titleDelivered(client: webApi.WebClient, item: DeliveryItem, logger: Logger): Promise<void> {
  const { channel, threadTs, ts, pane } = item.deliver.place;
  if (!pane || !channel || !threadTs || !ts) return;
  const setTitle = (title: string) => client.assistant.threads.setTitle({ channel_id: channel, thread_ts: threadTs, title });
  await titleFromFirstAsk(client, setTitle, { channel, threadTs, ts, text: item.question }, logger);
}
