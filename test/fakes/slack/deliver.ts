import { createHmac, randomBytes } from "node:crypto";
import type { FakeSlack } from "./server.ts";

/**
 * How Slack talks to an app: signed HTTP POSTs (Events API JSON, slash commands
 * as form bodies) or envelopes over Socket Mode. The builders also record the
 * user's message in the fake workspace, so the bot can react to it and reply
 * in its thread as it would in a real one.
 */

export interface SignOptions {
  secret: string;
  /** Seconds since the epoch; default now. */
  timestamp?: number;
  retryNum?: number;
  retryReason?: string;
  /** Replace the computed signature (bad-signature tests). */
  signature?: string;
  omit?: ("x-slack-signature" | "x-slack-request-timestamp")[];
}

export interface Delivery {
  status: number;
  text: string;
}

/** Slack's v0 request signature over `v0:<timestamp>:<body>`. */
export function signature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

export async function postSigned(url: string, body: string, contentType: string, opts: SignOptions): Promise<Delivery> {
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    "content-type": contentType,
    "x-slack-request-timestamp": String(timestamp),
    "x-slack-signature": opts.signature ?? signature(opts.secret, timestamp, body),
  };
  if (opts.retryNum !== undefined) {
    headers["x-slack-retry-num"] = String(opts.retryNum);
    headers["x-slack-retry-reason"] = opts.retryReason ?? "http_timeout";
  }
  for (const h of opts.omit ?? []) delete headers[h];
  const res = await fetch(url, { method: "POST", headers, body });
  return { status: res.status, text: await res.text() };
}

export interface MentionInput {
  channel: string;
  text: string;
  user?: string;
  /** Reply inside this thread (a mention in a thread). */
  threadTs?: string;
  /** Mark as posted by another bot (bot_id set). */
  botId?: string;
  /** Files shared with the message (`slack.sharedFiles.share(...)`), as the event's `files[]`. */
  files?: Record<string, unknown>[];
}

/** Records the user's message in the workspace and builds the `event_callback` Slack would send. */
export function mentionEvent(slack: FakeSlack, input: MentionInput): EventEnvelope {
  // Slack escapes &, < and > in what people type; mentions arrive as <@U…>.
  const text = `<@${slack.id.botUserId}> ${escapeText(input.text)}`;
  return personEvent(slack, input, text, { type: "app_mention" }, input.botId ? { bot_id: input.botId, subtype: "bot_message" } : {});
}

/**
 * A person's direct message to the app (its Messages tab): a `message` event
 * with `channel_type: "im"`, which Slack sends for every message in the DM,
 * the app's own answers included (those carry `bot_id`).
 */
export function directMessageEvent(slack: FakeSlack, input: MentionInput & { subtype?: string }): EventEnvelope {
  const extra = { ...(input.botId ? { bot_id: input.botId } : {}), ...(input.subtype ? { subtype: input.subtype } : {}) };
  return personEvent(slack, input, escapeText(input.text), { type: "message", channel_type: "im" }, extra);
}

/** Records the message in the workspace and wraps it as the event Slack would send. */
function personEvent(slack: FakeSlack, input: MentionInput, text: string, kind: Record<string, string>, extra: Record<string, string>): EventEnvelope {
  const user = input.user ?? "U0ALICE";
  const msg = slack.ws.add({ channel: input.channel, thread_ts: input.threadTs, user, bot_id: input.botId, text, via: "user" });
  return envelope(slack, {
    ...kind,
    user,
    text,
    ts: msg.ts,
    channel: input.channel,
    event_ts: msg.ts,
    team: slack.id.teamId,
    ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    ...(input.files ? { files: input.files } : {}),
    ...extra,
  });
}

export function escapeText(text: string): string {
  // A user mention picked in Slack's composer arrives as <@U…>, not escaped; tests write it that way.
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/&lt;@([UW][A-Z0-9]+)&gt;/g, "<@$1>");
}

/** A top-level message from a person (to start a thread under it). */
export function userMessage(slack: FakeSlack, channel: string, text: string, user = "U0ALICE"): string {
  return slack.ws.add({ channel, user, text, via: "user" }).ts;
}

export interface EventEnvelope {
  token: string;
  team_id: string;
  api_app_id: string;
  event: Record<string, unknown>;
  type: "event_callback";
  event_id: string;
  event_time: number;
  authorizations: Record<string, unknown>[];
  is_ext_shared_channel: boolean;
  event_context: string;
}

export function envelope(slack: FakeSlack, event: Record<string, unknown>, eventId = newEventId()): EventEnvelope {
  return {
    token: "legacy-verification-token",
    team_id: slack.id.teamId,
    api_app_id: slack.id.appId,
    event,
    type: "event_callback",
    event_id: eventId,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ enterprise_id: null, team_id: slack.id.teamId, user_id: slack.id.botUserId, is_bot: true, is_enterprise_install: false }],
    is_ext_shared_channel: false,
    event_context: `4-${randomBytes(8).toString("hex")}`,
  };
}

export function newEventId(): string {
  return `Ev${randomBytes(5).toString("hex").toUpperCase()}`;
}

export interface SlashInput {
  channel: string;
  text: string;
  user?: string;
}

/** The form fields Slack posts for `/duet <text>`, with a live response_url on the fake. */
export function slashCommand(slack: FakeSlack, input: SlashInput): Record<string, string> {
  const user = input.user ?? "U0ALICE";
  return {
    token: "legacy-verification-token",
    team_id: slack.id.teamId,
    team_domain: slack.id.teamName,
    channel_id: input.channel,
    channel_name: "general",
    user_id: user,
    user_name: "alice",
    command: "/duet",
    text: escapeText(input.text),
    api_app_id: slack.id.appId,
    is_enterprise_install: "false",
    response_url: slack.responseUrl(input.channel, user),
    trigger_id: `${Date.now()}.${randomBytes(4).readUInt32BE()}.${randomBytes(8).toString("hex")}`,
  };
}

/** Send an Events API payload to the bot's HTTP endpoint, signed. */
export function postEvent(botUrl: string, payload: unknown, opts: SignOptions): Promise<Delivery> {
  return postSigned(botUrl, JSON.stringify(payload), "application/json", opts);
}

/** Send a slash command to the bot's HTTP endpoint, signed (Slack uses exactly this content type). */
export function postCommand(botUrl: string, fields: Record<string, string>, opts: SignOptions): Promise<Delivery> {
  return postSigned(botUrl, new URLSearchParams(fields).toString(), "application/x-www-form-urlencoded", opts);
}

export interface ButtonInput {
  channel: string;
  /** The message that holds the button. */
  messageTs: string;
  actionId: string;
  value?: string;
  blockId?: string;
  user?: string;
}

/**
 * The `block_actions` payload Slack sends when a person clicks a button on a
 * message: over HTTP as a signed form body `payload=<json>` (postInteraction),
 * over Socket Mode as an `interactive` envelope (`socket.deliver("interactive", …)`).
 */
export function buttonClick(slack: FakeSlack, input: ButtonInput): Record<string, unknown> {
  const user = input.user ?? "U0ALICE";
  const msg = slack.ws.find(input.channel, input.messageTs);
  if (!msg) throw new Error(`fake Slack: no message ${input.messageTs} in ${input.channel} to click on`);
  const now = Date.now() / 1000;
  return {
    type: "block_actions",
    user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: slack.id.teamId },
    api_app_id: slack.id.appId,
    token: "legacy-verification-token",
    container: { type: "message", message_ts: msg.ts, channel_id: input.channel, is_ephemeral: false, ...(msg.thread_ts ? { thread_ts: msg.thread_ts } : {}) },
    trigger_id: `${Math.floor(now)}.${randomBytes(4).readUInt32BE()}.${randomBytes(8).toString("hex")}`,
    team: { id: slack.id.teamId, domain: slack.id.teamName },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: input.channel, name: "general" },
    message: { type: "message", user: msg.user, bot_id: msg.bot_id, text: msg.text, blocks: msg.blocks ?? [], ts: msg.ts, ...(msg.thread_ts ? { thread_ts: msg.thread_ts } : {}) },
    state: { values: {} },
    response_url: slack.responseUrl(input.channel, user),
    actions: [
      {
        action_id: input.actionId,
        block_id: input.blockId ?? "actions",
        text: { type: "plain_text", text: "Stop", emoji: true },
        ...(input.value !== undefined ? { value: input.value } : {}),
        type: "button",
        action_ts: now.toFixed(6),
      },
    ],
  };
}

/** Send an interaction payload (a button click) to the bot's HTTP endpoint, signed, as Slack does. */
export function postInteraction(botUrl: string, payload: unknown, opts: SignOptions): Promise<Delivery> {
  return postSigned(botUrl, new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), "application/x-www-form-urlencoded", opts);
}
