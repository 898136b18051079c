import { type AttachmentPayload, type REST, Routes } from "discord.js";

/**
 * Where a live answer's messages go on Discord, over the REST client: an
 * interaction (the deferred reply, then follow-ups, all through the
 * interaction's webhook) or a person's message (a reply to it, then messages in
 * its channel). Mentions in what Duet posts never ping anyone.
 */

export interface LivePayload {
  content: string;
  files?: AttachmentPayload[];
  /** Action rows (the Stop button), or [] to remove them. */
  components: unknown[];
}

export interface LiveTarget {
  /** Shows the first message (the deferred reply, or the reply to the message); returns its id. */
  first(p: LivePayload): Promise<string>;
  /** Posts one more message after the others; returns its id. */
  more(p: LivePayload): Promise<string>;
  edit(id: string, p: LivePayload): Promise<void>;
  remove(id: string): Promise<void>;
}

const NO_PINGS = { parse: [] as string[] };

/** The REST body and files of a payload; files are listed as new attachments, as Discord asks. */
export function restRequest(p: LivePayload, extra: Record<string, unknown> = {}) {
  const files = (p.files ?? []).map((f) => ({ name: f.name ?? "file.txt", data: f.attachment as Buffer }));
  const body = {
    content: p.content,
    components: p.components,
    allowed_mentions: NO_PINGS,
    ...(p.files ? { attachments: files.map((f, id) => ({ id, filename: f.name })) } : {}),
    ...extra,
  };
  return { body, ...(files.length ? { files } : {}) };
}

const idOf = (res: unknown) => (res as { id: string }).id;

/**
 * Webhook calls carry the interaction's token in the path and no bot token: a
 * 401 for an expired interaction token must not make the REST client drop the
 * bot's own token (it does so on any 401 sent with it).
 */
export function interactionTarget(rest: REST, applicationId: string, token: string, ephemeral = false): LiveTarget {
  const flags = ephemeral ? { flags: 64 } : {};
  const noAuth = { auth: false };
  // The deferred reply is named `@original`, as the interaction webhook documents it.
  let original = "";
  const path = (id: string) => Routes.webhookMessage(applicationId, token, id === original ? "@original" : id);
  return {
    first: async (p) => (original = idOf(await rest.patch(Routes.webhookMessage(applicationId, token, "@original"), { ...restRequest(p), ...noAuth }))),
    more: async (p) => idOf(await rest.post(Routes.webhook(applicationId, token), { ...restRequest(p, flags), ...noAuth })),
    edit: async (id, p) => void (await rest.patch(path(id), { ...restRequest(p), ...noAuth })),
    remove: async (id) => void (await rest.delete(path(id), noAuth)),
  };
}

export function messageTarget(rest: REST, channelId: string, messageId: string): LiveTarget {
  return {
    first: async (p) =>
      idOf(
        await rest.post(Routes.channelMessages(channelId), restRequest(p, { message_reference: { message_id: messageId, fail_if_not_exists: false }, allowed_mentions: { parse: [], replied_user: true } })),
      ),
    more: async (p) => idOf(await rest.post(Routes.channelMessages(channelId), restRequest(p))),
    edit: async (id, p) => void (await rest.patch(Routes.channelMessage(channelId, id), restRequest(p))),
    remove: async (id) => void (await rest.delete(Routes.channelMessage(channelId, id))),
  };
}
