import type { FakeOAuth } from "./oauth.ts";
import { type Block, type FakeFile, Workspace } from "./state.ts";

/**
 * The Web API methods the bot calls, answering as Slack does: `{ok: true, ...}` or
 * `{ok: false, error}` with HTTP 200, and Slack's limits enforced (50 blocks, 3,000
 * characters of section text, text cut past 40,000) so a rendering bug fails here
 * the way it would fail in a real workspace.
 */

export interface Identity {
  teamId: string;
  teamName: string;
  botUserId: string;
  botId: string;
  appId: string;
  botToken: string;
  appToken: string;
}

export interface MethodContext {
  args: Record<string, unknown>;
  token: string | undefined;
  ws: Workspace;
  id: Identity;
  baseUrl: string;
  socketUrl: () => string;
  oauth: FakeOAuth;
}

type Result = Record<string, unknown>;
type Method = (ctx: MethodContext) => Result;

const MAX_BLOCKS = 50;
const MAX_SECTION_TEXT = 3000;
const MAX_TEXT = 40_000;

const fail = (error: string, extra: Result = {}): Result => ({ ok: false, error, ...extra });

function str(args: Record<string, unknown>, key: string): string | undefined {
  const v = args[key];
  return typeof v === "string" && v.length > 0 ? v : typeof v === "number" ? String(v) : undefined;
}

/** Nested arguments arrive JSON-encoded in form bodies (the SDK's serialisation) or as JSON. */
export function json<T>(value: unknown): T | undefined | "invalid" {
  if (value === undefined || value === "") return undefined;
  if (typeof value !== "string") return value as T;
  try {
    return JSON.parse(value) as T;
  } catch {
    return "invalid";
  }
}

/** Slack's block checks that matter for chat output. Returns error strings like Slack's `errors`. */
export function validateBlocks(blocks: unknown, maxBlocks = MAX_BLOCKS): string[] {
  if (!Array.isArray(blocks)) return ["must be an array [json-pointer:/blocks]"];
  const errors: string[] = [];
  if (blocks.length > maxBlocks) errors.push(`no more than ${maxBlocks} items allowed [json-pointer:/blocks]`);
  blocks.forEach((b: Block, i) => {
    if (!b || typeof b.type !== "string") return errors.push(`missing required field: type [json-pointer:/blocks/${i}]`);
    if (b.type === "section") {
      const t = b.text;
      if (!t && !b.fields) errors.push(`must provide text or fields [json-pointer:/blocks/${i}]`);
      if (t && (typeof t.text !== "string" || t.text.length === 0)) errors.push(`must be more than 0 characters [json-pointer:/blocks/${i}/text/text]`);
      if (t && typeof t.text === "string" && t.text.length > MAX_SECTION_TEXT) {
        errors.push(`must be less than ${MAX_SECTION_TEXT + 1} characters [json-pointer:/blocks/${i}/text/text]`);
      }
    } else if (b.type === "context") {
      if (!Array.isArray(b.elements) || b.elements.length === 0 || b.elements.length > 10) {
        errors.push(`must have 1 to 10 elements [json-pointer:/blocks/${i}/elements]`);
      }
    } else if (b.type === "header") {
      if (typeof b.text?.text !== "string" || b.text.text.length > 150) errors.push(`invalid header text [json-pointer:/blocks/${i}/text]`);
    } else if (b.type === "actions") {
      // Slack's limits: at most 25 elements; a button's text at most 75 characters, its value 2,000, its action_id 255.
      const els = Array.isArray(b.elements) ? b.elements : [];
      if (els.length > 25) errors.push(`must have at most 25 elements [json-pointer:/blocks/${i}/elements]`);
      els.forEach((e: Block, j: number) => {
        if (e?.type !== "button") return;
        const where = `[json-pointer:/blocks/${i}/elements/${j}]`;
        if (typeof e.text?.text !== "string" || e.text.text.length === 0 || e.text.text.length > 75) errors.push(`invalid button text ${where}`);
        if (typeof e.value === "string" && e.value.length > 2000) errors.push(`must be less than 2001 characters ${where}/value`);
        if (typeof e.action_id === "string" && e.action_id.length > 255) errors.push(`must be less than 256 characters ${where}/action_id`);
      });
      if (typeof b.block_id === "string" && b.block_id.length > 255) errors.push(`must be less than 256 characters [json-pointer:/blocks/${i}/block_id]`);
    } else if (b.type === "input") {
      if (typeof b.label?.text !== "string" || !b.element?.type) errors.push(`input needs a label and an element [json-pointer:/blocks/${i}]`);
    } else if (!["divider", "rich_text", "image", "markdown"].includes(b.type)) {
      errors.push(`unsupported block type ${b.type} [json-pointer:/blocks/${i}]`);
    }
  });
  return errors;
}

export interface Content {
  ok: true;
  text: string;
  blocks?: Block[];
}

/** Shared by chat.postMessage, chat.postEphemeral, chat.update and response_url posts. */
export function messageContent(args: Record<string, unknown>): Content | Result {
  const blocks = json<Block[]>(args.blocks);
  if (blocks === "invalid") return fail("invalid_blocks_format");
  if (blocks !== undefined) {
    const errors = validateBlocks(blocks);
    if (errors.length) return fail("invalid_blocks", { errors, response_metadata: { messages: errors } });
  }
  const text = typeof args.text === "string" ? args.text : "";
  if (!text && !blocks?.length) return fail("no_text");
  return { ok: true, text: text.slice(0, MAX_TEXT), blocks };
}

function isContent(r: Content | Result): r is Content {
  return r.ok === true;
}

export function botAuth(ctx: MethodContext): Result | null {
  if (!ctx.token) return fail("not_authed");
  // The configured bot token (one workspace), or one an OAuth install granted and no refresh revoked.
  if (ctx.token !== ctx.id.botToken && !ctx.oauth.grantOf(ctx.token)) return fail(ctx.oauth.isRevoked(ctx.token) ? "token_expired" : "invalid_auth");
  return null;
}

function channelArg(ctx: MethodContext, key = "channel"): string | Result {
  const channel = str(ctx.args, key);
  if (!channel) return fail("channel_not_found");
  return channel;
}

export const METHODS: Record<string, Method> = {
  "auth.test": (ctx) => {
    const grant = ctx.oauth.grantOf(ctx.token);
    if (grant) return ctx.oauth.authTest(grant);
    return botAuth(ctx) ?? {
      ok: true,
      url: `https://${ctx.id.teamName}.slack.com/`,
      team: ctx.id.teamName,
      user: "duet",
      team_id: ctx.id.teamId,
      user_id: ctx.id.botUserId,
      bot_id: ctx.id.botId,
      is_enterprise_install: false,
    };
  },

  "apps.connections.open": (ctx) => {
    if (!ctx.token) return fail("not_authed");
    if (ctx.token !== ctx.id.appToken) return fail(ctx.token.startsWith("xoxb-") ? "not_allowed_token_type" : "invalid_auth");
    return { ok: true, url: ctx.socketUrl() };
  },

  "usergroups.users.list": (ctx) => {
    const denied = botAuth(ctx);
    if (denied) return denied;
    const members = ctx.ws.usergroups.get(str(ctx.args, "usergroup") ?? "");
    return members ? { ok: true, users: [...members] } : fail("no_such_subteam");
  },

  // Slack's users.info (users:read): the profile's display name, else the real name.
  "users.info": (ctx) => {
    const denied = botAuth(ctx);
    if (denied) return denied;
    const user = str(ctx.args, "user") ?? "";
    if (!/^[UW][A-Z0-9]+$/.test(user)) return fail("user_not_found");
    ctx.ws.lookups.push(user);
    const name = ctx.ws.people.get(user) ?? `member-${user}`;
    return { ok: true, user: { id: user, name: name.toLowerCase(), real_name: name, profile: { display_name: name, real_name: name } } };
  },

  "chat.postMessage": (ctx) => {
    const denied = botAuth(ctx);
    if (denied) return denied;
    const channel = channelArg(ctx);
    if (typeof channel !== "string") return channel;
    const content = messageContent(ctx.args);
    if (!isContent(content)) return content;
    const threadTs = str(ctx.args, "thread_ts");
    if (threadTs && !ctx.ws.find(channel, threadTs)) return fail("thread_not_found");
    const { text, blocks } = content;
    const msg = ctx.ws.add({ channel, thread_ts: threadTs, bot_id: ctx.id.botId, user: ctx.id.botUserId, via: "chat.postMessage", text, blocks });
    return { ok: true, channel, ts: msg.ts, message: { type: "message", text, blocks, bot_id: ctx.id.botId, ts: msg.ts, thread_ts: threadTs } };
  },

  "chat.update": (ctx) => {
    const denied = botAuth(ctx);
    if (denied) return denied;
    const channel = channelArg(ctx);
    if (typeof channel !== "string") return channel;
    const msg = ctx.ws.find(channel, str(ctx.args, "ts") ?? "");
    if (!msg) return fail("message_not_found");
    if (msg.bot_id !== ctx.id.botId) return fail("cant_update_message");
    const content = messageContent(ctx.args);
    if (!isContent(content)) return content;
    msg.text = content.text;
    msg.blocks = content.blocks;
    msg.edits += 1;
    return { ok: true, channel, ts: msg.ts, text: msg.text };
  },

  "chat.postEphemeral": (ctx) => {
    const denied = botAuth(ctx);
    if (denied) return denied;
    const channel = channelArg(ctx);
    if (typeof channel !== "string") return channel;
    const user = str(ctx.args, "user");
    if (!user) return fail("user_not_in_channel");
    const content = messageContent(ctx.args);
    if (!isContent(content)) return content;
    ctx.ws.ephemeral.push({ channel, user, thread_ts: str(ctx.args, "thread_ts"), via: "chat.postEphemeral", text: content.text, blocks: content.blocks });
    return { ok: true, message_ts: ctx.ws.nextTs() };
  },

  // Since 2026-03 it takes chat:write and works in channel threads, not only assistant threads.
  "assistant.threads.setStatus": (ctx) => {
    const denied = botAuth(ctx);
    if (denied) return denied;
    const channel = channelArg(ctx, "channel_id");
    if (typeof channel !== "string") return channel;
    const threadTs = str(ctx.args, "thread_ts");
    if (!threadTs || !ctx.ws.find(channel, threadTs)) return fail("invalid_thread_ts");
    const status = ctx.args.status;
    if (typeof status !== "string") return fail("invalid_arguments");
    const loading = ctx.args.loading_messages;
    const messages = loading === undefined ? undefined : json<unknown>(loading);
    if (messages !== undefined && (!Array.isArray(messages) || messages.length > 10 || messages.some((m) => typeof m !== "string"))) return fail("invalid_arguments");
    ctx.ws.setStatus(channel, threadTs, status, messages as string[] | undefined);
    return { ok: true };
  },

  "reactions.add": (ctx) => {
    const denied = botAuth(ctx);
    if (denied) return denied;
    const r = reactionTarget(ctx);
    if (!("name" in r)) return r;
    return ctx.ws.react(r.channel, r.ts, r.name, ctx.id.botUserId) ? { ok: true } : fail("already_reacted");
  },

  "reactions.remove": (ctx) => {
    const denied = botAuth(ctx);
    if (denied) return denied;
    const r = reactionTarget(ctx);
    if (!("name" in r)) return r;
    return ctx.ws.unreact(r.channel, r.ts, r.name, ctx.id.botUserId) ? { ok: true } : fail("no_reaction");
  },

  "files.getUploadURLExternal": (ctx) => {
    const denied = botAuth(ctx);
    if (denied) return denied;
    const filename = str(ctx.args, "filename");
    const length = Number(ctx.args.length);
    if (!filename || !Number.isInteger(length) || length < 0) return fail("invalid_arguments");
    const file: FakeFile = { id: ctx.ws.nextFileId(), filename, declaredLength: length };
    ctx.ws.files.set(file.id, file);
    return { ok: true, upload_url: `${ctx.baseUrl}/upload/${file.id}`, file_id: file.id };
  },

  "files.completeUploadExternal": (ctx) => {
    const denied = botAuth(ctx);
    if (denied) return denied;
    const files = json<{ id: string; title?: string }[]>(ctx.args.files);
    if (!Array.isArray(files) || files.length === 0) return fail("invalid_arguments");
    const shared: FakeFile[] = [];
    for (const f of files) {
      const file = ctx.ws.files.get(f.id);
      if (!file?.content) return fail("file_not_found");
      file.title = f.title ?? file.filename;
      shared.push(file);
    }
    const channel = str(ctx.args, "channel_id");
    const threadTs = str(ctx.args, "thread_ts");
    if (channel) {
      if (threadTs && !ctx.ws.find(channel, threadTs)) return fail("thread_not_found");
      const comment = str(ctx.args, "initial_comment");
      for (const file of shared) Object.assign(file, { channel, threadTs, initialComment: comment });
      ctx.ws.add({ channel, thread_ts: threadTs, bot_id: ctx.id.botId, user: ctx.id.botUserId, text: comment ?? "", files: shared, via: "files.completeUploadExternal" });
    }
    return { ok: true, files: shared.map((f) => ({ id: f.id, name: f.filename, title: f.title, size: f.content?.length })) };
  },
};

function reactionTarget(ctx: MethodContext): { channel: string; ts: string; name: string } | { ok: false; error: string } {
  const channel = str(ctx.args, "channel");
  const ts = str(ctx.args, "timestamp");
  const name = str(ctx.args, "name");
  if (!name) return { ok: false, error: "invalid_name" };
  if (!channel || !ts) return { ok: false, error: "no_item_specified" };
  if (!ctx.ws.find(channel, ts)) return { ok: false, error: "message_not_found" };
  return { channel, ts, name: name.replace(/^:|:$/g, "") };
}
