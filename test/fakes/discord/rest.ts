import type { IncomingMessage, ServerResponse } from "node:http";
import { sendJson } from "../http.ts";
import { INVALID_JSON, readDiscordBody } from "./body.ts";
import { botMessage, DiscordApiError, EPHEMERAL, validateMessageBody } from "./messages.ts";
import { IS_COMPONENTS_V2, v2AfterEdit } from "./components-v2.ts";
import { validateModal } from "./modals.ts";
import { channelPayload, snowflake, THREAD_TYPES, type FakeMessage } from "./payloads.ts";
import type { InteractionRecord, RestCall, UploadedFile, World } from "./world.ts";

/** The REST half of the fake Discord: the /api/v10 routes discord.js calls for Duet. */

export interface RestContext {
  world: World;
  gatewayUrl: () => string;
  shardCount: number;
  /** Sends a gateway event (the echo of a message the bot posted). */
  dispatch: (t: string, d: Record<string, unknown>) => void;
}

type Params = Record<string, string>;
type Handler = (ctx: RestContext, p: Params, body: any, files: UploadedFile[], query: URLSearchParams) => { status: number; json?: unknown };

const routes: [string, string, Handler][] = [];
function route(method: string, pattern: string, handler: Handler) {
  routes.push([method, pattern, handler]);
}

function match(pattern: string, path: string): Params | null {
  const a = pattern.split("/");
  const b = path.split("/");
  if (a.length !== b.length) return null;
  const params: Params = {};
  for (let i = 0; i < a.length; i++) {
    if (a[i].startsWith(":")) params[a[i].slice(1)] = b[i];
    else if (a[i] !== b[i]) return null;
  }
  return params;
}

export async function handleRest(ctx: RestContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://x");
  const { world } = ctx;
  // discord.js sends `@original` as `%40original`; Discord decodes each segment.
  const path = url.pathname.split("/").map(decodeURIComponent).join("/").replace(/^\/api\/v10(?=\/)/, "");
  const method = req.method ?? "GET";
  const found = routes.map(([m, p, h]) => (m === method ? { p, h, params: match(p, path) } : null)).find((r) => r?.params);
  const call: RestCall = { method, path, route: `${method} ${found?.p ?? path}`, query: Object.fromEntries(url.searchParams), body: null, files: [], status: 0, at: Date.now() };
  const finish = (status: number, json?: unknown, headers: Record<string, string> = {}) => {
    call.status = status;
    if (json && typeof json === "object" && "code" in json && status >= 400) call.errorCode = (json as { code: number }).code;
    world.record(call);
    if (json === undefined) {
      res.writeHead(status, headers);
      res.end();
    } else sendJson(res, status, json, headers);
  };
  try {
    const { body, files } = await readDiscordBody(req);
    call.body = body === INVALID_JSON ? null : body;
    call.files = files;
    if (!found || !found.params) return finish(404, { message: "404: Not Found", code: 0 });
    const plan = world.rateLimit;
    if (plan && plan.remaining > 0 && plan.match({ method, route: call.route, path })) {
      plan.remaining--;
      const headers: Record<string, string> = {
        "retry-after": String(plan.retryAfterSeconds),
        "x-ratelimit-limit": "5",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset-after": String(plan.retryAfterSeconds),
        "x-ratelimit-bucket": "fake-bucket",
        "x-ratelimit-scope": plan.global ? "global" : "user",
        ...(plan.global ? { "x-ratelimit-global": "true" } : {}),
      };
      return finish(429, { message: "You are being rate limited.", retry_after: plan.retryAfterSeconds, global: plan.global }, headers);
    }
    const held = world.holds.find((h) => call.route.includes(h.route));
    if (held) {
      held.arrive();
      await held.gate;
    }
    const failing = world.failure;
    if (failing && failing.remaining > 0 && failing.match({ method, route: call.route, path })) {
      failing.remaining--;
      return finish(failing.status, { message: failing.message, code: failing.code });
    }
    const needsBotAuth = !found.p.startsWith("/interactions/") && !found.p.startsWith("/webhooks/");
    if (needsBotAuth && req.headers.authorization !== `Bot ${world.opts.token}`) return finish(401, { message: "401: Unauthorized", code: 0 });
    if (body === INVALID_JSON) throw new DiscordApiError(400, 50109, "The request body contains invalid JSON.");
    const out = found.h(ctx, found.params, body, files, url.searchParams);
    finish(out.status, out.json);
  } catch (err) {
    if (err instanceof DiscordApiError) return finish(err.status, err.body());
    finish(500, { message: String(err), code: 0 });
  }
}

const ok = (json: unknown) => ({ status: 200, json });
const noContent = { status: 204 };

route("GET", "/gateway/bot", (ctx) =>
  ok({ url: ctx.gatewayUrl(), shards: ctx.shardCount, session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 } }),
);
route("GET", "/gateway", (ctx) => ok({ url: ctx.gatewayUrl() }));
route("GET", "/users/@me", (ctx) => ok(ctx.world.opts.botUser));
route("GET", "/applications/@me", (ctx) => ok({ id: ctx.world.opts.applicationId, name: "Duet", bot: ctx.world.opts.botUser, flags: 0, description: "" }));

route("POST", "/interactions/:id/:token/callback", (ctx, p, body, files, query) => {
  const { world } = ctx;
  const rec = world.interactions.get(p.id);
  if (!rec || rec.token !== p.token) throw new DiscordApiError(404, 10062, "Unknown interaction");
  if (rec.acknowledged) throw new DiscordApiError(400, 40060, "Interaction has already been acknowledged.");
  // Discord forgets an interaction that was not answered within 3 s.
  if (world.opts.now() - rec.createdAt > world.opts.interactionDeadlineMs) throw new DiscordApiError(404, 10062, "Unknown interaction");
  const type = body?.type;
  // 6 (deferred update) and 7 (update the message) answer a button click only.
  const onMessage = rec.messageId !== undefined && (type === 6 || type === 7);
  // 9 (a modal) answers a command or a click, never a modal's own submission.
  if (type === 9) {
    if (rec.type === 5) throw new DiscordApiError(400, 50035, "Invalid Form Body", { type: { _errors: [{ code: "INTERACTION_RESPONSE_TYPE_INVALID", message: "A modal cannot answer a modal" }] } });
    validateModal(body.data);
    rec.modal = body.data;
    rec.acknowledged = true;
    return noContent;
  }
  if (type !== 4 && type !== 5 && !onMessage) throw new DiscordApiError(400, 50035, "Invalid Form Body", { type: { _errors: [{ code: "BASE_TYPE_CHOICES", message: "unsupported in the fake" }] } });
  rec.ephemeral = Boolean((body?.data?.flags ?? 0) & EPHEMERAL);
  if (type === 7) {
    const target = world.messages.get(rec.messageId ?? "");
    if (!target) throw new DiscordApiError(404, 10008, "Unknown Message");
    validateMessageBody(body.data, files, { allowEmpty: true, existing: target });
    editMessage(world, target, body.data ?? {});
  }
  if (type === 4) {
    validateMessageBody(body.data, files);
    rec.original = botMessage(world, rec.channelId ?? "0", body.data, files, { interaction_metadata: { id: rec.id, type: 2 } });
    if (!rec.ephemeral) ctx.dispatch("MESSAGE_CREATE", rec.original);
  }
  rec.acknowledged = true;
  if (query.get("with_response") === "true") return ok({ interaction: { id: rec.id, type: 2 }, resource: { type, ...(rec.original ? { message: rec.original } : {}) } });
  return noContent;
});

/** `@original` or a message id: the original reply can be named either way, as on Discord. */
function webhookTarget(rec: InteractionRecord, message: string): FakeMessage | null {
  if (message === "@original" || message === rec.original?.id) return rec.original;
  return rec.followups.find((m) => m.id === message) ?? null;
}

function webhookInteraction(ctx: RestContext, p: Params) {
  const rec = ctx.world.interactionByToken(p.token);
  if (!rec || p.app !== ctx.world.opts.applicationId) throw new DiscordApiError(404, 10015, "Unknown Webhook");
  if (ctx.world.opts.now() - rec.createdAt > ctx.world.opts.interactionTokenTtlMs) throw new DiscordApiError(401, 50027, "Invalid Webhook Token");
  if (!rec.acknowledged) throw new DiscordApiError(404, 10008, "Unknown Message");
  return rec;
}

route("PATCH", "/webhooks/:app/:token/messages/:message", (ctx, p, body, files) => {
  const rec = webhookInteraction(ctx, p);
  // After a button click, @original is the message the button is on.
  const clicked = p.message === "@original" && rec.messageId !== undefined ? ctx.world.messages.get(rec.messageId) : undefined;
  if (clicked) {
    validateMessageBody(body, files, { allowEmpty: true, existing: clicked });
    editMessage(ctx.world, clicked, body ?? {});
    return ok(clicked);
  }
  const target = webhookTarget(rec, p.message);
  if (p.message !== "@original" && !target) throw new DiscordApiError(404, 10008, "Unknown Message");
  validateMessageBody(body, files, { allowEmpty: true, existing: target });
  const isOriginal = target !== null && target === rec.original;
  const edited = botMessage(ctx.world, rec.channelId ?? "0", { content: target?.content, ...body }, files, {
    ...(target ? { id: target.id } : {}),
    flags: (rec.ephemeral ? EPHEMERAL : 0) | (v2AfterEdit(target ?? {}, body) ? IS_COMPONENTS_V2 : 0),
    webhook_id: ctx.world.opts.applicationId,
    edited_timestamp: new Date().toISOString(),
  });
  // Attachments the edit keeps (listed by id in `attachments`) stay; new files are added.
  if (target && files.length === 0 && body?.attachments === undefined) edited.attachments = target.attachments;
  if (target && body?.components === undefined && target.components !== undefined) edited.components = target.components;
  if (p.message === "@original" || isOriginal) rec.original = edited;
  else rec.followups = rec.followups.map((m) => (m.id === edited.id ? edited : m));
  ctx.world.recordEdit(edited, Date.now());
  return ok(edited);
});

route("DELETE", "/webhooks/:app/:token/messages/:message", (ctx, p) => {
  const rec = webhookInteraction(ctx, p);
  const target = webhookTarget(rec, p.message);
  if (!target) throw new DiscordApiError(404, 10008, "Unknown Message");
  if (target === rec.original) rec.original = null;
  else rec.followups = rec.followups.filter((m) => m.id !== target.id);
  ctx.world.messages.delete(target.id);
  return noContent;
});

route("GET", "/webhooks/:app/:token/messages/:message", (ctx, p) => {
  const rec = webhookInteraction(ctx, p);
  const target = webhookTarget(rec, p.message);
  if (!target) throw new DiscordApiError(404, 10008, "Unknown Message");
  return ok(target);
});

route("POST", "/webhooks/:app/:token", (ctx, p, body, files) => {
  const rec = webhookInteraction(ctx, p);
  validateMessageBody(body, files);
  const ephemeral = Boolean((body?.flags ?? 0) & EPHEMERAL);
  const msg = botMessage(ctx.world, rec.channelId ?? "0", body, files, { webhook_id: ctx.world.opts.applicationId });
  rec.followups.push(msg);
  if (!ephemeral) ctx.dispatch("MESSAGE_CREATE", msg);
  return ok(msg);
});

/** Discord keeps an enforced nonce for "a few minutes"; the fake takes two. */
const NONCE_WINDOW_MS = 2 * 60_000;

function channelOr404(ctx: RestContext, id: string) {
  const channel = ctx.world.channels.get(id);
  if (!channel) throw new DiscordApiError(404, 10003, "Unknown Channel");
  return channel;
}

route("GET", "/channels/:id", (ctx, p) => ok(channelPayload(channelOr404(ctx, p.id))));

route("POST", "/channels/:id/messages", (ctx, p, body, files) => {
  const channel = channelOr404(ctx, p.id);
  validateMessageBody(body, files);
  const ref = body?.message_reference;
  if (ref?.message_id && ref.fail_if_not_exists !== false) {
    const target = ctx.world.messages.get(ref.message_id);
    if (!target || target.channel_id !== p.id) {
      throw new DiscordApiError(400, 50035, "Invalid Form Body", { message_reference: { _errors: [{ code: "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", message: "Unknown message" }] } });
    }
  }
  // enforce_nonce: the same nonce from the same author within a few minutes answers the message already
  // posted, and posts nothing (how a bot cut off before it learned the id avoids a second copy).
  const nonceKey = body?.enforce_nonce === true && body?.nonce !== undefined ? `${ctx.world.opts.botUser.id}:${String(body.nonce)}` : null;
  const earlier = nonceKey ? ctx.world.nonces.get(nonceKey) : undefined;
  if (earlier && ctx.world.opts.now() - earlier.at < NONCE_WINDOW_MS && ctx.world.messages.has(earlier.message.id)) return ok(earlier.message);
  // Posting in an archived (unlocked) thread unarchives it, as on Discord.
  if (THREAD_TYPES.includes(channel.type) && channel.thread_metadata?.archived) channel.thread_metadata.archived = false;
  const msg = botMessage(ctx.world, p.id, body, files, {
    ...(ref ? { message_reference: { ...ref, channel_id: p.id, guild_id: channel.guild_id } } : {}),
    ...(body?.nonce !== undefined ? { nonce: body.nonce } : {}),
  });
  if (nonceKey) ctx.world.nonces.set(nonceKey, { message: msg, at: ctx.world.opts.now() });
  ctx.dispatch("MESSAGE_CREATE", { ...msg, channel_type: channel.type });
  return ok(msg);
});

/**
 * A message read over REST by a bot without the Message Content intent (Duet
 * asks for none): a person's message that does not mention the bot comes
 * without its text, attachments, embeds or components, as on Discord.
 */
route("GET", "/channels/:id/messages/:message", (ctx, p) => {
  channelOr404(ctx, p.id);
  const msg = ctx.world.messages.get(p.message);
  if (!msg || msg.channel_id !== p.id) throw new DiscordApiError(404, 10008, "Unknown Message");
  const bot = ctx.world.opts.botUser.id;
  const mentioned = msg.author.id === bot || (msg.mentions as { id: string }[] | undefined)?.some((u) => u.id === bot);
  return ok(mentioned ? msg : { ...msg, content: "", attachments: [], embeds: [], components: [] });
});

/**
 * A thread started on a message: its id is the message's, so a second start
 * answers 160004; a thread cannot start in a thread (50024). While
 * `threadRefusal` is set, Discord refuses (a missing permission).
 */
route("POST", "/channels/:id/messages/:message/threads", (ctx, p, body) => {
  const channel = channelOr404(ctx, p.id);
  const { world } = ctx;
  if (THREAD_TYPES.includes(channel.type)) throw new DiscordApiError(400, 50024, "Cannot execute action on this channel type");
  const msg = world.messages.get(p.message);
  if (!msg || msg.channel_id !== p.id) throw new DiscordApiError(404, 10008, "Unknown Message");
  if (world.threadRefusal) throw new DiscordApiError(world.threadRefusal.status, world.threadRefusal.code, world.threadRefusal.message);
  if (world.channels.has(msg.id)) throw new DiscordApiError(400, 160004, "A thread has already been created for this message");
  const name = body?.name;
  if (typeof name !== "string" || name.length < 1 || name.length > 100) throw new DiscordApiError(400, 50035, "Invalid Form Body", { name: { _errors: [{ code: "BASE_TYPE_BAD_LENGTH", message: "Must be between 1 and 100 in length." }] } });
  const thread = {
    id: msg.id,
    type: 11,
    guild_id: channel.guild_id,
    name,
    parent_id: channel.id,
    thread_metadata: { archived: false, auto_archive_duration: body?.auto_archive_duration ?? 1440, archive_timestamp: new Date().toISOString(), locked: false },
  };
  world.channels.set(thread.id, thread);
  msg.thread = channelPayload(thread);
  ctx.dispatch("THREAD_CREATE", { ...channelPayload(thread), newly_created: true });
  return { status: 201, json: channelPayload(thread) };
});

/** The bot's own reaction (`@me`) on a message in the channel: added once however often it is put, removed by DELETE. */
function ownReaction(ctx: RestContext, p: Params, change: (now: string[]) => string[]) {
  channelOr404(ctx, p.id);
  const msg = ctx.world.messages.get(p.message);
  if (!msg || msg.channel_id !== p.id) throw new DiscordApiError(404, 10008, "Unknown Message");
  ctx.world.reactions.set(msg.id, change(ctx.world.reactions.get(msg.id) ?? []));
  return noContent;
}
route("PUT", "/channels/:id/messages/:message/reactions/:emoji/@me", (ctx, p) => ownReaction(ctx, p, (now) => (now.includes(p.emoji) ? now : [...now, p.emoji])));
route("DELETE", "/channels/:id/messages/:message/reactions/:emoji/@me", (ctx, p) => ownReaction(ctx, p, (now) => now.filter((e) => e !== p.emoji)));

/** Only the bot's own messages can be edited by it (Discord: 50005). */
route("PATCH", "/channels/:id/messages/:message", (ctx, p, body, files) => {
  channelOr404(ctx, p.id);
  const msg = ctx.world.messages.get(p.message);
  if (!msg || msg.channel_id !== p.id) throw new DiscordApiError(404, 10008, "Unknown Message");
  if (msg.author.id !== ctx.world.opts.botUser.id) throw new DiscordApiError(403, 50005, "Cannot edit a message authored by another user");
  validateMessageBody(body, files, { allowEmpty: true, existing: msg });
  editMessage(ctx.world, msg, body ?? {});
  return ok(msg);
});

route("DELETE", "/channels/:id/messages/:message", (ctx, p) => {
  channelOr404(ctx, p.id);
  const msg = ctx.world.messages.get(p.message);
  if (!msg || msg.channel_id !== p.id) throw new DiscordApiError(404, 10008, "Unknown Message");
  ctx.world.messages.delete(msg.id);
  return noContent;
});

/** Applies an edit's content, components and flag (an edit checked already) in place and records it. */
function editMessage(world: World, msg: FakeMessage, body: { content?: unknown; components?: unknown; flags?: unknown }): void {
  const v2 = v2AfterEdit(msg, body);
  if (typeof body.content === "string") msg.content = body.content;
  if (body.content === null) msg.content = "";
  if (Array.isArray(body.components)) msg.components = body.components;
  msg.flags = v2 ? Number(msg.flags ?? 0) | IS_COMPONENTS_V2 : Number(msg.flags ?? 0) & ~IS_COMPONENTS_V2;
  msg.edited_timestamp = new Date().toISOString();
  world.recordEdit(msg, Date.now());
}

route("POST", "/channels/:id/typing", (ctx, p) => {
  channelOr404(ctx, p.id);
  ctx.world.typing.push(p.id);
  return noContent;
});

/** Discord's command types the fake takes: 1 a slash command, 3 a message's context-menu command. */
const CHAT_INPUT = 1;
const MESSAGE_COMMAND = 3;

/**
 * Discord's rules for a command: a slash command has a lower-case name and a
 * description of 1-100 characters; a message command a name of 1-32
 * characters that may hold capitals and spaces, and no description or options.
 */
function commandProblem(cmd: any): string | null {
  const type = cmd?.type ?? CHAT_INPUT;
  if (type === CHAT_INPUT) {
    if (!/^[-_\p{Ll}\p{N}]{1,32}$/u.test(cmd?.name ?? "")) return "APPLICATION_COMMAND_INVALID_NAME";
    if (typeof cmd?.description !== "string" || cmd.description.length < 1 || cmd.description.length > 100) return "APPLICATION_COMMAND_INVALID_DESCRIPTION";
    return null;
  }
  if (type !== MESSAGE_COMMAND) return "BASE_TYPE_CHOICES";
  if (!/^[-_ \p{L}\p{N}]{1,32}$/u.test(cmd?.name ?? "") || cmd.name.trim() !== cmd.name) return "APPLICATION_COMMAND_INVALID_NAME";
  if ((cmd.description ?? "") !== "" || (cmd.options ?? []).length > 0) return "APPLICATION_COMMAND_INVALID_DESCRIPTION";
  return null;
}

function putCommands(ctx: RestContext, body: any) {
  if (!Array.isArray(body)) throw new DiscordApiError(400, 50035, "Invalid Form Body", { _errors: [{ code: "BASE_TYPE_ARRAY", message: "Must be an array." }] });
  for (const [i, cmd] of body.entries()) {
    const problem = commandProblem(cmd);
    if (problem) throw new DiscordApiError(400, 50035, "Invalid Form Body", { [i]: { name: { _errors: [{ code: problem, message: "Invalid command" }] } } });
  }
  return body.map((cmd: Record<string, unknown>) => ({ id: snowflake(), application_id: ctx.world.opts.applicationId, version: snowflake(), type: CHAT_INPUT, description: "", ...cmd }));
}

route("PUT", "/applications/:app/commands", (ctx, _p, body) => {
  ctx.world.commands.global = putCommands(ctx, body);
  return ok(ctx.world.commands.global);
});
route("PUT", "/applications/:app/guilds/:guild/commands", (ctx, p, body) => {
  if (!ctx.world.guilds.has(p.guild)) throw new DiscordApiError(403, 50001, "Missing Access");
  const cmds = putCommands(ctx, body);
  ctx.world.commands.guild.set(p.guild, cmds);
  return ok(cmds);
});
route("GET", "/applications/:app/commands", (ctx) => ok(ctx.world.commands.global));
route("GET", "/applications/:app/guilds/:guild/commands", (ctx, p) => ok(ctx.world.commands.guild.get(p.guild) ?? []));
