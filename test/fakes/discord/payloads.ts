/**
 * Discord API v10 object shapes the fake hands to discord.js. They carry the
 * fields discord.js reads when it builds its structures; anything it does not
 * read is left out on purpose.
 */

/** Snowflakes: ms since the Discord epoch shifted left 22 bits, plus a counter. */
const DISCORD_EPOCH = 1420070400000n;
let increment = 0n;
export function snowflake(at = Date.now()): string {
  increment = (increment + 1n) & 0xfffn;
  return (((BigInt(at) - DISCORD_EPOCH) << 22n) | increment).toString();
}

export const ChannelType = { GuildText: 0, DM: 1, AnnouncementThread: 10, PublicThread: 11, PrivateThread: 12 } as const;
export const THREAD_TYPES: number[] = [ChannelType.AnnouncementThread, ChannelType.PublicThread, ChannelType.PrivateThread];

export interface DiscordUser {
  id: string;
  username: string;
  global_name: string | null;
  discriminator: string;
  avatar: string | null;
  bot?: boolean;
}

export function user(id: string, username: string, bot = false): DiscordUser {
  return { id, username, global_name: username, discriminator: "0", avatar: null, ...(bot ? { bot: true } : {}) };
}

/** A guild the bot is in; `botRoleId` is the managed role Discord made for the bot when it joined. */
export interface FakeGuild {
  id: string;
  name: string;
  botRoleId: string;
}

export interface FakeChannel {
  id: string;
  type: number;
  guild_id?: string;
  name?: string;
  parent_id?: string | null;
  thread_metadata?: { archived: boolean; auto_archive_duration: number; archive_timestamp: string; locked: boolean };
  /** Left out of GUILD_CREATE, so discord.js never caches it (as after a partial outage). */
  uncached?: boolean;
}

/** Channel object as the API sends it (GUILD_CREATE, CHANNEL_DELETE, interaction `channel`). */
export function channelPayload(ch: FakeChannel): Record<string, unknown> {
  const base: Record<string, unknown> = {
    id: ch.id,
    type: ch.type,
    guild_id: ch.guild_id,
    name: ch.name,
    parent_id: ch.parent_id ?? null,
    last_message_id: null,
    rate_limit_per_user: 0,
    flags: 0,
  };
  if (THREAD_TYPES.includes(ch.type)) {
    return { ...base, owner_id: "1", message_count: 0, member_count: 1, total_message_sent: 0, thread_metadata: ch.thread_metadata };
  }
  return { ...base, position: 0, permission_overwrites: [], topic: null, nsfw: false };
}

/** Everyone may do everything in the fake: permissions are not what these tests are about. */
export const ALL_PERMISSIONS = "2199023255551";

/**
 * GUILD_CREATE's guild. Its roles are @everyone and, as Discord makes on joining, the
 * bot's own managed role (tagged with the bot's user id), which the bot member holds.
 */
export function guildPayload(guild: FakeGuild, channels: FakeChannel[], botUser: DiscordUser, systemChannelId: string | null = null): Record<string, unknown> {
  const { id, name, botRoleId } = guild;
  const visible = channels.filter((c) => !c.uncached);
  const botRole = { id: botRoleId, name: botUser.username, permissions: ALL_PERMISSIONS, position: 1, color: 0, hoist: false, managed: true, mentionable: false, flags: 0, tags: { bot_id: botUser.id } };
  return {
    id,
    name,
    icon: null,
    owner_id: "1",
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    mfa_level: 0,
    nsfw_level: 0,
    premium_tier: 0,
    system_channel_flags: 0,
    system_channel_id: systemChannelId,
    preferred_locale: "en-US",
    features: [],
    roles: [{ id, name: "@everyone", permissions: ALL_PERMISSIONS, position: 0, color: 0, hoist: false, managed: false, mentionable: false, flags: 0 }, botRole],
    emojis: [],
    stickers: [],
    joined_at: new Date().toISOString(),
    large: false,
    unavailable: false,
    member_count: 2,
    members: [{ user: botUser, roles: [botRoleId], joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0 }],
    channels: visible.filter((c) => !THREAD_TYPES.includes(c.type)).map(channelPayload),
    threads: visible.filter((c) => THREAD_TYPES.includes(c.type)).map(channelPayload),
    presences: [],
    voice_states: [],
    stage_instances: [],
    guild_scheduled_events: [],
  };
}

export interface FakeMessage extends Record<string, unknown> {
  id: string;
  channel_id: string;
  content: string;
  author: DiscordUser;
}

export function messagePayload(fields: {
  id?: string;
  channel_id: string;
  guild_id?: string;
  author: DiscordUser;
  content: string;
  attachments?: unknown[];
  message_reference?: unknown;
  flags?: number;
  mentions?: DiscordUser[];
  webhook_id?: string;
}): FakeMessage {
  return {
    id: fields.id ?? snowflake(),
    channel_id: fields.channel_id,
    ...(fields.guild_id ? { guild_id: fields.guild_id } : {}),
    author: fields.author,
    content: fields.content,
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: fields.mentions ?? [],
    mention_roles: [],
    attachments: fields.attachments ?? [],
    embeds: [],
    pinned: false,
    // 19 is a reply, 0 a default message.
    type: fields.message_reference ? 19 : 0,
    flags: fields.flags ?? 0,
    ...(fields.message_reference ? { message_reference: fields.message_reference } : {}),
    ...(fields.webhook_id ? { webhook_id: fields.webhook_id } : {}),
  };
}

/** Slash command option as Discord sends it: subcommand (type 1) holding string options (type 3). */
export interface CommandInput {
  name?: string;
  subcommand?: string;
  options?: Record<string, string>;
}

export function commandData(cmd: CommandInput, commandId: string): Record<string, unknown> {
  const inner = Object.entries(cmd.options ?? {}).map(([name, value]) => ({ type: 3, name, value }));
  return {
    id: commandId,
    name: cmd.name ?? "duet",
    type: 1,
    options: cmd.subcommand ? [{ type: 1, name: cmd.subcommand, options: inner }] : inner,
  };
}
