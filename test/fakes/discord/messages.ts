import { messagePayload, snowflake, type FakeMessage } from "./payloads.ts";
import type { UploadedFile, World } from "./world.ts";

/** Discord's message rules, enforced the way the API does, so a bot that breaks them fails its tests. */

export const MAX_CONTENT = 2000;
export const MAX_FILES = 10;
export const EPHEMERAL = 64;

export class DiscordApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: unknown,
  ) {
    super(message);
  }
  body() {
    return { message: this.message, code: this.code, ...(this.errors ? { errors: this.errors } : {}) };
  }
}

export function validateMessageBody(body: any, files: UploadedFile[], opts: { allowEmpty?: boolean } = {}): void {
  if (body !== null && typeof body !== "object") throw new DiscordApiError(400, 50109, "The request body contains invalid JSON.");
  const content = body?.content;
  if (content !== undefined && content !== null && typeof content !== "string") {
    throw formError("content", "BASE_TYPE_STRING", "Must be a string.");
  }
  if (typeof content === "string" && content.length > MAX_CONTENT) {
    throw formError("content", "BASE_TYPE_MAX_LENGTH", `Must be ${MAX_CONTENT} or fewer in length.`);
  }
  if (files.length > MAX_FILES) throw formError("files", "BASE_TYPE_MAX_LENGTH", `Must be ${MAX_FILES} or fewer in length.`);
  if (body?.components !== undefined) validateComponents(body.components);
  const empty = !content && files.length === 0 && !(body?.embeds?.length > 0) && !(body?.components?.length > 0);
  if (empty && !opts.allowEmpty) throw new DiscordApiError(400, 50006, "Cannot send an empty message");
}

/** Discord's limits for buttons: 5 action rows, 5 buttons a row, custom ids of 1-100 characters unique in the message, labels of at most 80. */
function validateComponents(rows: any): void {
  if (!Array.isArray(rows) || rows.length > 5) throw formError("components", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.");
  const ids = new Set<string>();
  for (const row of rows) {
    if (row?.type !== 1 || !Array.isArray(row.components) || row.components.length === 0 || row.components.length > 5) {
      throw formError("components", "COMPONENT_LAYOUT_WIDTH_EXCEEDED", "An action row holds 1 to 5 components.");
    }
    for (const c of row.components) {
      const id = c?.custom_id;
      if (c?.type !== 2 || typeof id !== "string" || id.length < 1 || id.length > 100 || ids.has(id)) {
        throw formError("components", "COMPONENT_CUSTOM_ID_INVALID", "Each button needs a unique custom_id of 1 to 100 characters.");
      }
      if (typeof c.label === "string" && c.label.length > 80) throw formError("components", "BASE_TYPE_MAX_LENGTH", "Labels must be 80 or fewer in length.");
      ids.add(id);
    }
  }
}

function formError(field: string, code: string, message: string): DiscordApiError {
  return new DiscordApiError(400, 50035, "Invalid Form Body", { [field]: { _errors: [{ code, message }] } });
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
