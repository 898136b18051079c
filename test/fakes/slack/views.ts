import { botAuth, json, type MethodContext, validateBlocks } from "./web-api.ts";
import type { Block } from "./state.ts";

/**
 * The Web API methods of Slack's app surfaces: the Home tab (views.publish),
 * modals (views.open), who is in which channel (users.conversations) and the
 * agent pane (assistant.threads.*), with Slack's limits: 100 blocks a view,
 * 3,000 characters a text, a trigger used once, at most 4 suggested prompts.
 */

type Result = Record<string, unknown>;
const fail = (error: string, extra: Result = {}): Result => ({ ok: false, error, ...extra });

/** Slack's limits on a view (a Home tab or a modal). */
const VIEW_MAX_BLOCKS = 100;
const MAX_PROMPTS = 4;

const str = (args: Record<string, unknown>, key: string) => (typeof args[key] === "string" && args[key] ? (args[key] as string) : undefined);

/** A view as Slack checks it: a known type, at most 100 blocks, each block valid. */
type View = { type: string; blocks: Block[] } & Record<string, any>;

function checkView(raw: unknown, type: "home" | "modal"): { ok: true; view: View } | { ok: false; result: Result } {
  const view = json<{ type?: string; blocks?: Block[] } & Record<string, any>>(raw);
  if (!view || view === "invalid" || typeof view !== "object") return { ok: false, result: fail("invalid_arguments") };
  if (view.type !== type) return { ok: false, result: fail("invalid_arguments", { response_metadata: { messages: [`view type must be ${type}`] } }) };
  const errors = validateBlocks(view.blocks ?? [], VIEW_MAX_BLOCKS);
  if (type === "modal" && (typeof view.title?.text !== "string" || view.title.text.length > 24)) errors.push("title must be at most 24 characters [json-pointer:/view/title]");
  if (errors.length) return { ok: false, result: fail("invalid_arguments", { response_metadata: { messages: errors } }) };
  return { ok: true, view: { ...view, type: view.type, blocks: view.blocks ?? [] } };
}

/** Triggers already used: Slack takes each once. */
const usedTriggers = new Set<string>();

const threadKey = (ctx: MethodContext) => `${str(ctx.args, "channel_id")}/${str(ctx.args, "thread_ts")}`;

export const VIEW_METHODS: Record<string, (ctx: MethodContext) => Result> = {
  "views.publish": (ctx) => {
    const denied = botAuth(ctx);
    if (denied) return denied;
    const user = str(ctx.args, "user_id");
    if (!user || !/^[UW][A-Z0-9]+$/.test(user)) return fail("invalid_arguments");
    const checked = checkView(ctx.args.view, "home");
    if (!checked.ok) return checked.result;
    ctx.ws.homeViews.set(user, checked.view);
    ctx.ws.publishes.push({ user, view: checked.view });
    return { ok: true, view: { id: `V${ctx.ws.publishes.length}`, ...checked.view } };
  },

  "views.open": (ctx) => {
    const denied = botAuth(ctx);
    if (denied) return denied;
    const trigger = str(ctx.args, "trigger_id");
    if (!trigger) return fail("invalid_arguments");
    if (usedTriggers.has(trigger)) return fail("expired_trigger_id");
    const checked = checkView(ctx.args.view, "modal");
    if (!checked.ok) return checked.result;
    usedTriggers.add(trigger);
    ctx.ws.modals.push({ triggerId: trigger, view: checked.view });
    return { ok: true, view: { id: `VM${ctx.ws.modals.length}`, ...checked.view } };
  },

  // With a bot token Slack lists the channels both the user and the bot can see the membership of.
  "users.conversations": (ctx) => {
    const denied = botAuth(ctx);
    if (denied) return denied;
    const user = str(ctx.args, "user");
    if (!user) return fail("user_not_found");
    const limit = Math.min(Number(ctx.args.limit ?? 100) || 100, 1000);
    const all = [...ctx.ws.members].filter(([, people]) => people.has(user)).map(([id]) => id).sort();
    const start = Number(str(ctx.args, "cursor") ?? 0) || 0;
    const page = all.slice(start, start + limit);
    const next = start + limit < all.length ? String(start + limit) : "";
    return { ok: true, channels: page.map((id) => ({ id, is_channel: true, is_member: true })), response_metadata: { next_cursor: next } };
  },

  // The message at ts, then its thread's replies oldest first, up to `limit` (limit 1: the message alone).
  // A deleted message is thread_not_found.
  "conversations.replies": (ctx) => {
    const denied = botAuth(ctx);
    if (denied) return denied;
    const channel = str(ctx.args, "channel");
    const ts = str(ctx.args, "ts");
    if (!channel || ctx.ws.unreadable.has(channel)) return fail("channel_not_found");
    const msg = ts ? ctx.ws.find(channel, ts) : undefined;
    if (!msg) return fail("thread_not_found");
    const limit = Math.min(Number(ctx.args.limit ?? 1000) || 1000, 1000);
    const all = [msg, ...ctx.ws.thread(channel, msg.ts)];
    const shown = all.slice(0, limit).map((m) => ({
      type: "message", ts: m.ts, text: m.text, user: m.user, bot_id: m.bot_id, thread_ts: m.thread_ts, ...(m.subtype ? { subtype: m.subtype } : {}),
      ...(m.app_name ? { bot_profile: { id: m.bot_id, name: m.app_name } } : {}), ...(m.blocks ? { blocks: m.blocks } : {}),
      files: [...(m.files ?? []).map((f) => ({ id: f.id, name: f.filename })), ...(m.shared ?? [])],
    }));
    return { ok: true, messages: shown, has_more: all.length > limit };
  },

  "assistant.threads.setSuggestedPrompts": (ctx) => {
    const denied = botAuth(ctx);
    if (denied) return denied;
    const prompts = json<{ title: string; message: string }[]>(ctx.args.prompts);
    if (!Array.isArray(prompts) || prompts.length === 0 || prompts.length > MAX_PROMPTS) return fail("invalid_arguments");
    if (prompts.some((p) => typeof p?.title !== "string" || typeof p?.message !== "string" || !p.title || !p.message)) return fail("invalid_arguments");
    if (!str(ctx.args, "channel_id") || !str(ctx.args, "thread_ts")) return fail("invalid_arguments");
    const entry = ctx.ws.assistantThreads.get(threadKey(ctx)) ?? { titles: [] };
    entry.prompts = prompts;
    const title = str(ctx.args, "title");
    if (title) entry.promptsTitle = title;
    ctx.ws.assistantThreads.set(threadKey(ctx), entry);
    return { ok: true };
  },

  "assistant.threads.setTitle": (ctx) => {
    const denied = botAuth(ctx);
    if (denied) return denied;
    const title = str(ctx.args, "title");
    if (!title || !str(ctx.args, "channel_id") || !str(ctx.args, "thread_ts")) return fail("invalid_arguments");
    const entry = ctx.ws.assistantThreads.get(threadKey(ctx)) ?? { titles: [] };
    entry.titles.push(title);
    ctx.ws.assistantThreads.set(threadKey(ctx), entry);
    return { ok: true };
  },
};
