import type { ChannelPace } from "@duet/shared";
import { type AttachmentPayload, type REST, Routes } from "discord.js";
import { IS_COMPONENTS_V2 } from "../render-v2.ts";
import type { Outgoing } from "../render.ts";

/**
 * Where a live answer's messages go on Discord, over the REST client: an
 * interaction (the deferred reply, then follow-ups, all through the
 * interaction's webhook) or a person's message (a reply to it, then messages in
 * its channel). Mentions in what Duet posts never ping anyone. Each new
 * message visible in the channel waits the channel's turn in the bot's pace
 * (keyed by channel id: Discord's ids are unique across servers); edits, the
 * deferred reply (already posted by the deferral) and private follow-ups do not.
 */

export interface LivePayload {
  content: string;
  files?: AttachmentPayload[];
  /** Action rows (the Stop button), or [] to remove them; in a V2 message, its container. */
  components: unknown[];
  /** A Components V2 message: sent with the flag, its content cleared (a deferred reply that showed a note becomes V2). */
  v2?: boolean;
}

export interface LiveTarget {
  /**
   * Shows the first message (the deferred reply, or the reply to the message);
   * returns its id. A new message waits its turn in the channel first, so the
   * payload is asked for when the call goes: the newest state by then.
   */
  first(p: () => LivePayload): Promise<string>;
  /** Posts one more message after the others, in the channel's turn; returns its id. */
  more(p: LivePayload): Promise<string>;
  edit(id: string, p: LivePayload): Promise<void>;
  remove(id: string): Promise<void>;
}

const NO_PINGS = { parse: [] as string[] };

/** A final message as sent: its own buttons (Run and Skip on a proposal), or none: a live answer's Stop button goes. */
export const payloadOf = (msg: Outgoing): LivePayload => ({ content: msg.content, files: msg.files, components: msg.components ?? [], ...(msg.v2 ? { v2: true } : {}) });

/** The REST body and files of a payload; files are listed as new attachments, as Discord asks. */
export function restRequest(p: LivePayload, extra: Record<string, unknown> = {}) {
  const files = (p.files ?? []).map((f) => ({ name: f.name ?? "file.txt", data: f.attachment as Buffer }));
  const flags = (p.v2 ? IS_COMPONENTS_V2 : 0) | Number(extra.flags ?? 0);
  const body = {
    content: p.v2 ? null : p.content,
    components: p.components,
    allowed_mentions: NO_PINGS,
    ...(p.files ? { attachments: files.map((f, id) => ({ id, filename: f.name })) } : {}),
    ...extra,
    ...(flags ? { flags } : {}),
  };
  return { body, ...(files.length ? { files } : {}) };
}

const idOf = (res: unknown) => (res as { id: string }).id;

/**
 * Webhook calls carry the interaction's token in the path and no bot token: a
 * 401 for an expired interaction token must not make the REST client drop the
 * bot's own token (it does so on any 401 sent with it).
 */
export function interactionTarget(rest: REST, pace: ChannelPace, where: { applicationId: string; token: string; channelId: string }, ephemeral = false): LiveTarget {
  const { applicationId, token } = where;
  const flags = ephemeral ? { flags: 64 } : {};
  const noAuth = { auth: false };
  // The deferred reply is named `@original`, as the interaction webhook documents it.
  let original = "";
  const path = (id: string) => Routes.webhookMessage(applicationId, token, id === original ? "@original" : id);
  const followUp = (p: LivePayload) => rest.post(Routes.webhook(applicationId, token), { ...restRequest(p, flags), ...noAuth });
  return {
    first: async (p) => (original = idOf(await rest.patch(Routes.webhookMessage(applicationId, token, "@original"), { ...restRequest(p()), ...noAuth }))),
    more: async (p) => idOf(await (ephemeral ? followUp(p) : pace.run(where.channelId, () => followUp(p)))),
    edit: async (id, p) => void (await rest.patch(path(id), { ...restRequest(p), ...noAuth })),
    remove: async (id) => void (await rest.delete(path(id), noAuth)),
  };
}

/** Messages in `channelId`, the first a reply to `messageId` when given (a thread's answer replies to nothing). */
export function messageTarget(rest: REST, pace: ChannelPace, channelId: string, messageId?: string): LiveTarget {
  const reply = messageId ? { message_reference: { message_id: messageId, fail_if_not_exists: false }, allowed_mentions: { parse: [], replied_user: true } } : {};
  const post = (body: () => ReturnType<typeof restRequest>) => pace.run(channelId, () => rest.post(Routes.channelMessages(channelId), body()));
  return {
    first: async (p) => idOf(await post(() => restRequest(p(), reply))),
    more: async (p) => idOf(await post(() => restRequest(p))),
    edit: async (id, p) => void (await rest.patch(Routes.channelMessage(channelId, id), restRequest(p))),
    remove: async (id) => void (await rest.delete(Routes.channelMessage(channelId, id))),
  };
}
