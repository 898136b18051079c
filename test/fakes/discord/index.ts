import { FakeCdn } from "./cdn.ts";
import { randomBytes } from "node:crypto";
import { listen } from "../http.ts";
import { FakeGateway } from "./gateway.ts";
import {
  ChannelType,
  channelPayload,
  guildPayload,
  commandData,
  messagePayload,
  snowflake,
  user,
  ALL_PERMISSIONS,
  type CommandInput,
  type DiscordUser,
  type FakeChannel,
  type FakeMessage,
} from "./payloads.ts";
import { handleRest } from "./rest.ts";
import { modalSubmission } from "./modals.ts";
import { World, type InteractionRecord, type RestCall } from "./world.ts";

export type { RestCall, InteractionRecord, FakeChannel, FakeMessage, DiscordUser };
export { user, snowflake };
export { hasV2Flag, shownButtons, shownText } from "./components-v2.ts";

/**
 * A fake Discord on 127.0.0.1 for running the real discord.js client: REST under
 * `<url>/api/v10` and a gateway at the address `GET /gateway/bot` returns.
 * Tests build guilds and channels, then play users: `interaction()`,
 * `message()`, `archiveThread()`, `deleteThread()`, `deleteChannel()`, and
 * read what the bot did from `calls`, `interactions` and `messagesIn()` (a
 * Components V2 message's text through `shownText()`, its buttons through `shownButtons()`).
 */
export interface FakeDiscordOptions {
  token?: string;
  applicationId?: string;
  heartbeatIntervalMs?: number;
  shardCount?: number;
  interactionDeadlineMs?: number;
  interactionTokenTtlMs?: number;
  /** Clock for the interaction deadlines (default Date.now). */
  now?: () => number;
}

export type FakeDiscord = Awaited<ReturnType<typeof startFakeDiscord>>;

export async function startFakeDiscord(opts: FakeDiscordOptions = {}) {
  const botUser = user(snowflake(), "Duet", true);
  const world = new World({
    token: opts.token ?? `fake-${randomBytes(8).toString("hex")}`,
    applicationId: opts.applicationId ?? snowflake(),
    botUser,
    interactionDeadlineMs: opts.interactionDeadlineMs ?? 3_000,
    interactionTokenTtlMs: opts.interactionTokenTtlMs ?? 15 * 60_000,
    now: opts.now ?? Date.now,
  });
  const gateway = new FakeGateway(world, opts.heartbeatIntervalMs ?? 41_250);
  const ctx = { world, gatewayUrl: () => gateway.url, shardCount: opts.shardCount ?? 1, dispatch: (t: string, d: Record<string, unknown>) => gateway.dispatch(t, d) };
  let base = "";
  const cdn = new FakeCdn(() => base);
  const listening = await listen((req, res) => (cdn.handle(req, res) ? undefined : handleRest(ctx, req, res)));
  base = listening.url;
  gateway.attach(listening.server, listening.url);

  /** Roles and channel permissions per user id, as setMember gave them; everyone else has no role and every permission. */
  const memberships = new Map<string, { roles: string[]; permissions: string; nick?: string }>();
  const member = (u: DiscordUser) => {
    const m = memberships.get(u.id);
    return { user: u, nick: m?.nick ?? null, roles: m?.roles ?? [], joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0, permissions: m?.permissions ?? ALL_PERMISSIONS };
  };
  /** A member as a guild message carries it: the author's `member`, and each mentioned user's (no `user`, no permissions). */
  const partialMember = (u: DiscordUser) => {
    const { user: _user, permissions: _permissions, ...rest } = member(u);
    return rest;
  };
  const channel = (id: string) => {
    const ch = world.channels.get(id);
    if (!ch) throw new Error(`fake Discord: no channel ${id}`);
    return ch;
  };
  const alice = user(snowflake(), "alice");

  return {
    url: listening.url,
    /** What discord.js takes as `rest.api` (it appends /v10). */
    api: `${listening.url}/api`,
    token: world.opts.token,
    applicationId: world.opts.applicationId,
    botUser,
    /** A default human user for tests. */
    alice,
    world,
    gateway,
    calls: world.calls,
    interactions: world.interactions,
    typing: world.typing,
    /** Files people attach: `cdn.attach(name, bytes)` gives the attachment a message or interaction carries. */
    cdn,
    commands: world.commands,

    /** Guilds must exist before the bot connects to be in READY; channels may come later. */
    addGuild(name = "test guild", id = snowflake()): string {
      world.guilds.set(id, { id, name, botRoleId: snowflake() });
      return id;
    },
    /**
     * The bot is added to a server while connected: Discord sends GUILD_CREATE. With
     * `systemChannel`, the server has a text channel of that name as its system channel.
     */
    joinGuild(name: string, o: { systemChannel?: string } = {}): { guildId: string; systemChannelId: string | null } {
      const id = snowflake();
      const guild = { id, name, botRoleId: snowflake() };
      world.guilds.set(id, guild);
      let systemChannelId: string | null = null;
      if (o.systemChannel) {
        const ch: FakeChannel = { id: snowflake(), type: ChannelType.GuildText, guild_id: id, name: o.systemChannel, parent_id: null };
        world.channels.set(ch.id, ch);
        systemChannelId = ch.id;
      }
      gateway.dispatch("GUILD_CREATE", guildPayload(guild, world.channelsOf(id), world.opts.botUser, systemChannelId));
      return { guildId: id, systemChannelId };
    },
    /** The bot is kicked, or the server deleted: one GUILD_DELETE without `unavailable`, and the server is gone. */
    removeFromGuild(guildId: string): void {
      for (const c of world.channelsOf(guildId)) world.channels.delete(c.id);
      world.guilds.delete(guildId);
      gateway.dispatch("GUILD_DELETE", { id: guildId });
    },
    /** A Discord outage for one server: GUILD_DELETE with `unavailable: true`; everything in it stays. */
    guildOutage(guildId: string): void {
      gateway.dispatch("GUILD_DELETE", { id: guildId, unavailable: true });
    },
    /** A role in a server (GUILD_ROLE_CREATE), with no permissions of its own. */
    addRole(guildId: string, name: string, id = snowflake()): string {
      gateway.dispatch("GUILD_ROLE_CREATE", { guild_id: guildId, role: { id, name, permissions: "0", position: 1, color: 0, hoist: false, managed: false, mentionable: false, flags: 0 } });
      return id;
    },
    /** The role Discord made for the bot when it joined the guild (managed, tagged with the bot's id), sent in GUILD_CREATE. */
    botRoleOf(guildId: string): string {
      const guild = world.guilds.get(guildId);
      if (!guild) throw new Error(`no guild ${guildId} in the fake`);
      return guild.botRoleId;
    },
    /**
     * What a user's interactions say about them: their role ids and their permissions in
     * the channel (a decimal bitfield; "0" for none, "3072" to view and send only).
     */
    setMember(who: DiscordUser, m: { roles?: string[]; permissions?: string; nick?: string }): void {
      memberships.set(who.id, { roles: m.roles ?? [], permissions: m.permissions ?? ALL_PERMISSIONS, ...(m.nick ? { nick: m.nick } : {}) });
    },
    addChannel(guildId: string, name: string, o: { uncached?: boolean } = {}): string {
      const ch: FakeChannel = { id: snowflake(), type: ChannelType.GuildText, guild_id: guildId, name, parent_id: null, uncached: o.uncached };
      world.channels.set(ch.id, ch);
      if (!o.uncached) gateway.dispatch("CHANNEL_CREATE", channelPayload(ch));
      return ch.id;
    },
    addThread(parentId: string, name: string, o: { uncached?: boolean } = {}): string {
      const parent = channel(parentId);
      const ch: FakeChannel = {
        id: snowflake(),
        type: ChannelType.PublicThread,
        guild_id: parent.guild_id,
        name,
        parent_id: parentId,
        uncached: o.uncached,
        thread_metadata: { archived: false, auto_archive_duration: 1440, archive_timestamp: new Date().toISOString(), locked: false },
      };
      world.channels.set(ch.id, ch);
      if (!o.uncached) gateway.dispatch("THREAD_CREATE", { ...channelPayload(ch), newly_created: true });
      return ch.id;
    },

    /** A slash command as a user runs it; returns the interaction record (filled in as the bot answers). */
    interaction(channelId: string, cmd: CommandInput, from: DiscordUser = alice, o: { attachment?: { option: string; file: Record<string, unknown> }; attachmentSizeLimit?: number } = {}): InteractionRecord {
      const ch = channel(channelId);
      const data = commandData(cmd, snowflake());
      if (o.attachment) {
        // An attachment option (type 11) holds the attachment's id; the attachment itself is in `resolved`.
        const sub = (data.options as { options?: unknown[] }[])[0];
        (sub.options ??= []).push({ type: 11, name: o.attachment.option, value: o.attachment.file.id });
        data.resolved = { attachments: { [String(o.attachment.file.id)]: o.attachment.file } };
      }
      return this.rawInteraction({
        type: 2,
        data,
        ...(o.attachmentSizeLimit ? { attachment_size_limit: o.attachmentSizeLimit } : {}),
        guild_id: ch.guild_id,
        channel_id: ch.id,
        channel: channelPayload(ch),
        member: member(from),
      });
    },
    /**
     * A person clicks a button (custom_id) on a message the bot posted: a
     * MESSAGE_COMPONENT interaction (type 3) carrying that message.
     */
    click(message: FakeMessage, customId: string, from: DiscordUser = alice): InteractionRecord {
      const ch = channel(message.channel_id);
      return this.rawInteraction({
        type: 3,
        data: { custom_id: customId, component_type: 2 },
        message: world.messages.get(message.id) ?? message,
        guild_id: ch.guild_id,
        channel_id: ch.id,
        channel: channelPayload(ch),
        member: member(from),
      });
    },
    /**
     * A person picks a message command (`name`, "Ask Duet") from a message's Apps menu: an
     * APPLICATION_COMMAND interaction of command type 3, the message in `resolved` with its
     * text (Discord hands it over whether or not the bot has the Message Content intent).
     */
    messageCommand(message: FakeMessage, name = "Ask Duet", from: DiscordUser = alice): InteractionRecord {
      const ch = channel(message.channel_id);
      const target = world.messages.get(message.id) ?? message;
      return this.rawInteraction({
        type: 2,
        data: { id: snowflake(), name, type: 3, target_id: target.id, resolved: { messages: { [target.id]: target } } },
        guild_id: ch.guild_id,
        channel_id: ch.id,
        channel: channelPayload(ch),
        member: member(from),
      });
    },
    /** `from` submits the modal the bot answered `rec` with, having typed `values` (by text input custom id); the rest keep their pre-filled text. */
    submitModal(rec: InteractionRecord, values: Record<string, string>, from: DiscordUser = alice): InteractionRecord {
      if (!rec.modal) throw new Error(`fake Discord: interaction ${rec.id} was not answered with a modal`);
      const ch = channel(rec.channelId ?? "");
      return this.rawInteraction({ type: 5, data: modalSubmission(rec.modal, values), guild_id: ch.guild_id, channel_id: ch.id, channel: channelPayload(ch), member: member(from) });
    },
    /** Until `allowThreads()`, Discord refuses to start threads on messages (403 Missing Permissions by default). */
    refuseThreads(o: { status?: number; code?: number; message?: string } = {}): void {
      world.threadRefusal = { status: o.status ?? 403, code: o.code ?? 50013, message: o.message ?? "Missing Permissions" };
    },
    allowThreads(): void {
      world.threadRefusal = null;
    },
    /** A message is deleted (by its author or a moderator); the bot gets no event it needs. */
    deleteMessage(messageId: string): void {
      world.messages.delete(messageId);
    },
    /** Any INTERACTION_CREATE body (malformed ones too); id, token and application id are filled in. */
    rawInteraction(fields: Record<string, unknown>, replay?: InteractionRecord): InteractionRecord {
      const rec: InteractionRecord = replay ?? {
        id: snowflake(),
        token: `itok-${randomBytes(12).toString("hex")}`,
        guildId: fields.guild_id as string | undefined,
        channelId: fields.channel_id as string | undefined,
        createdAt: world.opts.now(),
        acknowledged: false,
        ephemeral: false,
        original: null,
        followups: [],
        ...(typeof (fields.message as FakeMessage | undefined)?.id === "string" ? { messageId: (fields.message as FakeMessage).id } : {}),
        ...(typeof fields.type === "number" ? { type: fields.type } : {}),
      };
      world.interactions.set(rec.id, rec);
      const payload = { application_id: world.opts.applicationId, version: 1, locale: "en-US", app_permissions: ALL_PERMISSIONS, entitlements: [], authorizing_integration_owners: {}, context: 0, ...fields, id: rec.id, token: rec.token };
      (rec as InteractionRecord & { payload?: unknown }).payload = payload;
      gateway.dispatch("INTERACTION_CREATE", payload);
      return rec;
    },
    /** Delivers the same INTERACTION_CREATE again (as after a gateway replay). */
    replayInteraction(rec: InteractionRecord): void {
      gateway.dispatch("INTERACTION_CREATE", (rec as InteractionRecord & { payload: Record<string, unknown> }).payload);
    },

    /**
     * A user's message; `mention: true` puts `<@bot>` in front, as the Discord client does.
     * `fields` overrides what Discord would send (a message `type`, a `webhook_id`, a system author).
     */
    message(channelId: string, content: string, o: { from?: DiscordUser; mention?: boolean; mentions?: DiscordUser[]; fields?: Record<string, unknown>; attachments?: Record<string, unknown>[] } = {}): FakeMessage {
      const ch = channel(channelId);
      const mentionsBot = o.mention ?? false;
      const author = o.from ?? alice;
      const mentioned = [...(mentionsBot ? [botUser] : []), ...(o.mentions ?? [])];
      const msg = messagePayload({
        channel_id: ch.id,
        guild_id: ch.guild_id,
        author,
        content: mentionsBot ? `<@${botUser.id}> ${content}` : content,
        mentions: mentioned,
        attachments: o.attachments,
      });
      Object.assign(msg, o.fields);
      world.messages.set(msg.id, msg);
      // The gateway's MESSAGE_CREATE adds `channel_type` and, in guilds, the author's `member` and each mentioned user's.
      const inGuild = ch.guild_id ? { member: partialMember(author), mentions: mentioned.map((u) => ({ ...u, member: partialMember(u) })) } : {};
      gateway.dispatch("MESSAGE_CREATE", { ...msg, channel_type: ch.type, ...inGuild });
      return msg;
    },
    /** A direct message channel with `from`, and a message in it. */
    directMessage(content: string, from: DiscordUser = alice, fields: Record<string, unknown> = {}): FakeMessage {
      const dm: FakeChannel = { id: snowflake(), type: ChannelType.DM };
      world.channels.set(dm.id, dm);
      const msg = Object.assign(messagePayload({ channel_id: dm.id, author: from, content }), fields);
      world.messages.set(msg.id, msg);
      gateway.dispatch("MESSAGE_CREATE", { ...msg, channel_type: ChannelType.DM });
      return msg;
    },

    archiveThread(threadId: string): void {
      const th = channel(threadId);
      th.thread_metadata = { ...th.thread_metadata!, archived: true, archive_timestamp: new Date().toISOString() };
      gateway.dispatch("THREAD_UPDATE", channelPayload(th));
    },
    /** Reopens an archived thread (Discord does this when someone posts in it). */
    unarchiveThread(threadId: string): void {
      const th = channel(threadId);
      th.thread_metadata = { ...th.thread_metadata!, archived: false };
      gateway.dispatch("THREAD_UPDATE", channelPayload(th));
    },
    deleteThread(threadId: string): void {
      const th = channel(threadId);
      world.channels.delete(threadId);
      // THREAD_DELETE carries only these four fields.
      gateway.dispatch("THREAD_DELETE", { id: th.id, guild_id: th.guild_id, parent_id: th.parent_id, type: th.type });
    },
    /** Deletes a channel; Discord sends one CHANNEL_DELETE and nothing for the channel's threads. */
    deleteChannel(channelId: string): void {
      const ch = channel(channelId);
      for (const c of world.channels.values()) if (c.parent_id === channelId) world.channels.delete(c.id);
      world.channels.delete(channelId);
      gateway.dispatch("CHANNEL_DELETE", channelPayload(ch));
    },

    /**
     * The next `count` REST calls matching `route` (a substring of "METHOD /path/:param") and `path` (a
     * substring of the path itself, to limit one channel) answer 429.
     */
    rateLimitNext(count: number, o: { retryAfterSeconds?: number; global?: boolean; route?: string; path?: string } = {}): void {
      world.rateLimit = {
        remaining: count,
        retryAfterSeconds: o.retryAfterSeconds ?? 0.2,
        global: o.global ?? false,
        match: (c) => (!o.route || c.route.includes(o.route)) && (!o.path || c.path.includes(o.path)),
      };
    },
    /** The next `count` REST calls matching `route` (a substring of "METHOD /path/:param") fail with a Discord error (403 Missing Access by default). */
    failNext(count: number, o: { route: string; status?: number; code?: number; message?: string }): void {
      world.failure = { remaining: count, status: o.status ?? 403, code: o.code ?? 50001, message: o.message ?? "Missing Access", match: (c) => c.route.includes(o.route) };
    },
    /**
     * Holds every REST call matching `route` (a substring of "METHOD /path/:param") until
     * `release()`: `arrived` settles when the first is being held (a barrier for tests of races).
     */
    hold(route: string): { arrived: Promise<void>; release(): void } {
      let arrive = () => {};
      let release = () => {};
      const arrived = new Promise<void>((r) => (arrive = r));
      const gate = new Promise<void>((r) => (release = r));
      const held = { route, gate, arrive };
      world.holds.push(held);
      return {
        arrived,
        release: () => {
          world.holds = world.holds.filter((h) => h !== held);
          release();
        },
      };
    },
    /** Every edit of a message the bot posted (the interaction reply, follow-ups, channel messages), in order. */
    edits: world.edits,
    waitForCall: (pred: (c: RestCall) => boolean, timeoutMs?: number, label?: string) => world.waitForCall(pred, timeoutMs, label),
    messagesIn: (channelId: string) => world.messagesIn(channelId),
    /** Drops the gateway connections: 4000 (resumable close) by default, or "terminate" for a dead TCP link. */
    dropConnections: (code: number | "terminate" = 4000) => gateway.drop(code),

    async close(): Promise<void> {
      await gateway.close();
      await listening.close();
    },
  };
}
