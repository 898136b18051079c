import { createHash } from "node:crypto";
import { type REST, Routes } from "discord.js";
import { type ChannelPace, type ChatSurface, type DeliveryItem, type DeliveryTarget, type FlowDeps, proposeDelivered, type Reply } from "@duet/shared";
import type { Logger } from "./deps.ts";
import { payloadOf, restRequest } from "./live/targets.ts";
import type { ComponentsStyle } from "./config.ts";
import { renderAnswerV2 } from "./render-v2.ts";
import { scheduledRunLine } from "./control/render-schedules.ts";
import { MESSAGE_MAX_CHARS, type Outgoing, renderReply } from "./render.ts";

/** Where a Discord answer goes, as the room keeps it: the channel (or thread), and the person's message it replies to. */
export function discordTarget(channel: string, replyTo?: string): DeliveryTarget {
  return { platform: "discord", place: { channel, ...(replyTo ? { replyTo } : {}) } };
}

/** Discord takes a nonce of at most 25 characters. */
const NONCE_CHARS = 25;

/**
 * The nonce of one message of a delivered answer: the same for every delivery
 * of it, so with `enforce_nonce` a post repeated after a bot died (before it
 * could confirm) answers the message already posted instead of a second copy.
 */
export function deliveryNonce(roomId: string, key: string, part: number): string {
  return createHash("sha256").update(`${roomId}\n${key}\n${part}`).digest("base64url").slice(0, NONCE_CHARS);
}

const idOf = (res: unknown) => (res as { id: string }).id;

/**
 * Delivers an answer the room kept (its bot died or lost the Worker): the
 * message posted for it before (a live answer's first message) is edited into
 * the answer, else it is posted as a reply to the person's message; each
 * message goes with its nonce enforced, in the channel's turn. Resolves with the first message's id.
 */
export async function deliverToDiscord(rest: REST, pace: ChannelPace, log: Logger, item: DeliveryItem, style: ComponentsStyle = "classic"): Promise<string | null> {
  const { channel, replyTo } = item.deliver.place;
  if (!channel) return null;
  const heading = scheduledRunLine(item);
  const out = style === "v2" ? renderAnswerV2(item.answer, heading) : withHeading(renderReply({ kind: "answer", answer: item.answer, question: item.question, user: item.userId ?? "" }), heading);
  let first: string | null = null;
  for (const [i, msg] of out.entries()) {
    const payload = payloadOf(msg);
    if (i === 0 && item.messageId) {
      try {
        await rest.patch(Routes.channelMessage(channel, item.messageId), restRequest(payload));
        first = item.messageId;
        continue;
      } catch (err) {
        log.info(`the message posted for an answer in ${item.roomId} could not be edited (${String(err)}); posting it`);
      }
    }
    const reply = i === 0 && replyTo ? { message_reference: { message_id: replyTo, fail_if_not_exists: false }, allowed_mentions: { parse: [], replied_user: true } } : {};
    const body = restRequest(payload, { ...reply, nonce: deliveryNonce(item.roomId, item.key, i), enforce_nonce: true });
    const id = idOf(await pace.run(channel, () => rest.post(Routes.channelMessages(channel), body)));
    first ??= id;
  }
  if (first) log.info(`delivered an answer kept in ${item.roomId} (${out.length} message${out.length === 1 ? "" : "s"})`);
  return first;
}

/** A scheduled run's answer is nobody's reply: its first message starts with the schedule's line, or the line goes alone when it does not fit. */
function withHeading(out: Outgoing[], heading: string | null): Outgoing[] {
  if (!heading) return out;
  const [first, ...rest] = out;
  if (first && heading.length + 1 + first.content.length <= MESSAGE_MAX_CHARS) return [{ ...first, content: `${heading}\n${first.content}` }, ...rest];
  return [{ content: heading.slice(0, MESSAGE_MAX_CHARS), files: [] }, ...out];
}

/**
 * The change of a delivered answer that ended with the model's `<pr>`,
 * proposed in the channel (or thread) the answer went to, with its Open and
 * Skip buttons, as after a live answer. No interaction goes with it, so what
 * only the asker would see is posted there too.
 */
export async function proposeInDiscord(rest: REST, pace: ChannelPace, log: Logger, flow: FlowDeps, item: DeliveryItem): Promise<void> {
  const { channel } = item.deliver.place;
  if (!channel) return;
  const post = async (reply: Reply) => {
    let first: string | null = null;
    for (const msg of renderReply(reply)) {
      const body = restRequest(payloadOf(msg));
      first ??= idOf(await pace.run(channel, () => rest.post(Routes.channelMessages(channel), body)));
    }
    return first ? { id: first } : null;
  };
  const surface: ChatSurface = { post, postPrivate: post, edit: async () => false, showProgress: () => async () => {} };
  await proposeDelivered(flow, surface, item);
  log.info(`proposed the change of an answer delivered in ${item.roomId}`);
}
