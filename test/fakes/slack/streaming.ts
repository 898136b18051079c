import type { Block, SlackMessage, StreamState, TaskUpdate } from "./state.ts";
import { type MethodContext, validateBlocks } from "./web-api.ts";

/**
 * Slack's streamed messages: `chat.startStream` posts a reply that grows through
 * `chat.appendStream` until `chat.stopStream` (or Slack's lifetime for a stream,
 * about 5 minutes) ends it. The checks follow Slack's documentation and what the
 * live API answers:
 * - a stream in a channel needs `recipient_user_id` and `recipient_team_id`
 *   (`missing_recipient_user_id` / `missing_recipient_team_id`); a DM does not;
 * - content is `markdown_text` (at most 12,000 characters a call) or `chunks`
 *   (`markdown_text`, `task_update`, `plan_update`, `blocks`), and a stream keeps
 *   the shape it started with (`streaming_mode_mismatch`);
 * - a stopped or expired stream takes nothing more (`message_not_in_streaming_state`),
 *   and `chat.update` refuses a message that is still streaming (`streaming_state_conflict`).
 * @slack/web-api's ChatStreamer sends chunks on every call (JSON-encoded in a form body).
 */

export interface StreamSettings {
  /** How long a stream stays open after chat.startStream (Slack: about 5 minutes). */
  lifetimeMs: number;
  /** When set, every streaming method answers this error (a workspace without streaming). */
  refused: string | null;
  now: () => number;
}

type Result = Record<string, unknown>;
const fail = (error: string): Result => ({ ok: false, error });

const MAX_MARKDOWN = 12_000;
const TASK_STATUSES = new Set(["pending", "in_progress", "complete", "error"]);

function str(args: Record<string, unknown>, key: string): string | undefined {
  const v = args[key];
  return typeof v === "string" && v.length > 0 ? v : undefined;
}

function parsed(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return "invalid";
  }
}

interface Content {
  mode: "text" | "chunks" | null;
  text: string;
  tasks: TaskUpdate[];
  blocks: Block[];
}

/** Reads markdown_text / chunks; a string is an error code. */
function contentOf(args: Record<string, unknown>): Content | string {
  const markdown = typeof args.markdown_text === "string" ? args.markdown_text : undefined;
  const rawChunks = args.chunks === undefined || args.chunks === "" ? undefined : parsed(args.chunks);
  if (markdown !== undefined && markdown.length > MAX_MARKDOWN) return "msg_too_long";
  if (markdown !== undefined && rawChunks !== undefined) return "invalid_arguments";
  if (rawChunks === undefined) return { mode: markdown ? "text" : null, text: markdown ?? "", tasks: [], blocks: [] };
  if (!Array.isArray(rawChunks)) return "invalid_chunks";
  const out: Content = { mode: "chunks", text: "", tasks: [], blocks: [] };
  for (const chunk of rawChunks as Record<string, unknown>[]) {
    if (chunk?.type === "markdown_text" && typeof chunk.text === "string") {
      if (chunk.text.length > MAX_MARKDOWN) return "msg_too_long";
      out.text += chunk.text;
    } else if (chunk?.type === "task_update") {
      const { id, title, status } = chunk;
      if (typeof id !== "string" || !id || typeof title !== "string" || typeof status !== "string" || !TASK_STATUSES.has(status)) return "invalid_chunks";
      const task: TaskUpdate = { id, title, status: status as TaskUpdate["status"] };
      if (typeof chunk.details === "string") task.details = chunk.details;
      if (typeof chunk.output === "string") task.output = chunk.output;
      out.tasks.push(task);
    } else if (chunk?.type === "plan_update" && typeof chunk.title === "string") {
      // A plan's title; nothing in the fake reads it.
    } else if (chunk?.type === "blocks" && Array.isArray(chunk.blocks)) {
      if (validateBlocks(chunk.blocks).length) return "invalid_blocks";
      out.blocks.push(...(chunk.blocks as Block[]));
    } else {
      return "invalid_chunks";
    }
  }
  return out;
}

function apply(msg: SlackMessage, stream: StreamState, content: Content, at: number): string | null {
  if (content.mode) {
    if (stream.mode && stream.mode !== content.mode) return "streaming_mode_mismatch";
    stream.mode = content.mode;
  }
  msg.text += content.text;
  for (const task of content.tasks) {
    const i = stream.tasks.findIndex((t) => t.id === task.id);
    if (i >= 0) stream.tasks[i] = { ...stream.tasks[i], ...task };
    else stream.tasks.push(task);
  }
  if (content.blocks.length) msg.blocks = [...(msg.blocks ?? []), ...content.blocks];
  if (content.text || content.tasks.length) stream.appends.push({ at, text: content.text, tasks: content.tasks.map((t) => `${t.id}:${t.status}`) });
  return null;
}

/** The streamed message `ts` names, if it can still take content; else Slack's error. */
function openStream(ctx: MethodContext, settings: StreamSettings): { msg: SlackMessage; stream: StreamState } | { error: string } {
  const channel = str(ctx.args, "channel");
  if (!channel) return { error: "channel_not_found" };
  const ts = str(ctx.args, "ts");
  if (!ts) return { error: "invalid_arguments" };
  const msg = ctx.ws.find(channel, ts);
  if (!msg) return { error: "message_not_found" };
  if (msg.bot_id !== ctx.id.botId) return { error: "message_not_owned_by_app" };
  if (!msg.stream || !isStreaming(msg, settings)) return { error: "message_not_in_streaming_state" };
  return { msg, stream: msg.stream };
}

type Method = (ctx: MethodContext, settings: StreamSettings) => Result;

export const STREAM_METHODS: Record<string, Method> = {
  "chat.startStream": (ctx, settings) => {
    const channel = str(ctx.args, "channel");
    if (!channel) return fail("channel_not_found");
    const threadTs = str(ctx.args, "thread_ts");
    if (threadTs && !ctx.ws.find(channel, threadTs)) return fail("thread_not_found");
    // DMs (ids starting with D) know their one recipient; channels must be told.
    const recipientUserId = str(ctx.args, "recipient_user_id");
    const recipientTeamId = str(ctx.args, "recipient_team_id");
    if (!channel.startsWith("D")) {
      if (!recipientUserId) return fail("missing_recipient_user_id");
      if (!recipientTeamId) return fail("missing_recipient_team_id");
    }
    const content = contentOf(ctx.args);
    if (typeof content === "string") return fail(content);
    const at = settings.now();
    const stream: StreamState = { startedAt: at, open: true, mode: null, recipientUserId, recipientTeamId, tasks: [], appends: [] };
    const msg = ctx.ws.add({ channel, thread_ts: threadTs, bot_id: ctx.id.botId, user: ctx.id.botUserId, text: "", via: "chat.startStream", stream });
    apply(msg, stream, content, at);
    return { ok: true, channel, ts: msg.ts };
  },

  "chat.appendStream": (ctx, settings) => {
    const target = openStream(ctx, settings);
    if ("error" in target) return fail(target.error);
    const content = contentOf(ctx.args);
    if (typeof content === "string") return fail(content);
    if (!content.mode) return fail("no_text");
    const error = apply(target.msg, target.stream, content, settings.now());
    return error ? fail(error) : { ok: true, channel: target.msg.channel, ts: target.msg.ts };
  },

  "chat.stopStream": (ctx, settings) => {
    const target = openStream(ctx, settings);
    if ("error" in target) return fail(target.error);
    const content = contentOf(ctx.args);
    if (typeof content === "string") return fail(content);
    const blocks = parsed(ctx.args.blocks);
    if (blocks !== undefined && blocks !== "") {
      if (validateBlocks(blocks).length) return fail("invalid_blocks");
      content.blocks.push(...(blocks as Block[]));
    }
    const error = apply(target.msg, target.stream, content, settings.now());
    if (error) return fail(error);
    target.stream.open = false;
    return { ok: true, channel: target.msg.channel, ts: target.msg.ts, message: { text: target.msg.text, blocks: target.msg.blocks } };
  },
};

/** True while `msg` is a stream that can still take content (chat.update refuses it). */
export function isStreaming(msg: SlackMessage, settings: StreamSettings): boolean {
  const stream = msg.stream;
  if (!stream?.open) return false;
  if (settings.now() - stream.startedAt > settings.lifetimeMs) stream.open = false;
  return stream.open;
}
