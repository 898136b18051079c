import { messagePayload, snowflake, type FakeMessage } from "./payloads.ts";
import type { UploadedFile, World } from "./world.ts";
import { formError, hasV2Flag, v2AfterEdit, validateComponentsOf } from "./components-v2.ts";
import { DiscordApiError } from "./errors.ts";

export { DiscordApiError };

/** Discord's message rules, enforced the way the API does, so a bot that breaks them fails its tests. */

export const MAX_CONTENT = 2000;
export const MAX_FILES = 10;
export const EPHEMERAL = 64;

/**
 * A message body as Discord checks it: `existing`, the message an edit
 * changes (its flag and its attachments count); without it, a new message.
 */
export function validateMessageBody(body: any, files: UploadedFile[], opts: { allowEmpty?: boolean; existing?: FakeMessage | null } = {}): void {
  if (body !== null && typeof body !== "object") throw new DiscordApiError(400, 50109, "The request body contains invalid JSON.");
  const content = body?.content;
  if (content !== undefined && content !== null && typeof content !== "string") {
    throw formError("content", "BASE_TYPE_STRING", "Must be a string.");
  }
  if (typeof content === "string" && content.length > MAX_CONTENT) {
    throw formError("content", "BASE_TYPE_MAX_LENGTH", `Must be ${MAX_CONTENT} or fewer in length.`);
  }
  if (files.length > MAX_FILES) throw formError("files", "BASE_TYPE_MAX_LENGTH", `Must be ${MAX_FILES} or fewer in length.`);
  const v2 = opts.existing ? v2AfterEdit(opts.existing, body) : hasV2Flag(body?.flags);
  const kept = body?.attachments === undefined ? ((opts.existing?.attachments ?? []) as { filename: string }[]).map((a) => a.filename) : [];
  validateComponentsOf(body, v2, [...files.map((f) => f.filename), ...kept]);
  const empty = !content && files.length === 0 && !(body?.embeds?.length > 0) && !(body?.components?.length > 0);
  if (empty && !opts.allowEmpty) throw new DiscordApiError(400, 50006, "Cannot send an empty message");
}

export function attachmentsFrom(files: UploadedFile[], channelId: string): unknown[] {
  return files.map((f) => {
    const id = snowflake();
    const url = `https://cdn.discordapp.test/attachments/${channelId}/${id}/${f.filename}`;
    return { id, filename: f.filename, size: f.size, url, proxy_url: url, content_type: f.contentType };
  });
}

/** A message authored by the bot (channel send, webhook follow-up or edited original). */
export function botMessage(world: World, channelId: string, body: any, files: UploadedFile[], extra: Partial<FakeMessage> = {}): FakeMessage {
  const channel = world.channels.get(channelId);
  const msg = messagePayload({
    channel_id: channelId,
    guild_id: channel?.guild_id,
    author: world.opts.botUser,
    content: typeof body?.content === "string" ? body.content : "",
    attachments: attachmentsFrom(files, channelId),
    message_reference: body?.message_reference,
    flags: typeof body?.flags === "number" ? body.flags : 0,
  });
  if (Array.isArray(body?.components)) msg.components = body.components;
  Object.assign(msg, extra);
  world.messages.set(msg.id, msg);
  return msg;
}
