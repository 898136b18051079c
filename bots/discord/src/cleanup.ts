import { Events, type Client, type GatewayDispatchPayload } from "discord.js";
import { DEDUPE_TTL_MS, RecentIds, WORKSPACE_CLEANUP_TIMEOUT_MS, workspaceRoomId, type CleanupResponse, type WorkerClient } from "@duet/shared";
import type { Logger } from "./deps.ts";
import { channelRoom, threadRoom, THREAD_CHANNEL_TYPES } from "./rooms.ts";

/**
 * Deleting rooms when Discord removes their place: an archived or deleted
 * thread deletes its room; a deleted channel deletes its room, and the Worker
 * deletes that room's thread rooms with it; the bot leaving a server (kicked, or
 * the server deleted) deletes every room it had there, through the server's room.
 *
 * discord.js drops THREAD_UPDATE, THREAD_DELETE and CHANNEL_DELETE for channels
 * it has not cached, so the raw packets are handled too. Both paths can fire
 * for one event; the recently-cleaned set makes the Worker see one DELETE.
 */

/** Bound on remembered rooms, so a burst of deletions cannot grow memory. */
const RECENT_MAX = 5_000;

export class RoomCleaner {
  /** Rooms cleaned lately (for the default ten minutes); the two paths fire within the same tick. */
  private readonly recent: RecentIds;

  constructor(
    private readonly worker: WorkerClient,
    private readonly log: Logger,
    now: () => number = Date.now,
  ) {
    this.recent = new RecentIds(DEDUPE_TTL_MS, RECENT_MAX, now);
  }

  /**
   * Deletes a room once. Per process is enough: DELETE is idempotent in the
   * Worker, and a guild's events always reach the same shard.
   */
  async clean(room: string, reason: string, opts: { force?: boolean; timeoutMs?: number } = {}): Promise<CleanupResponse | null> {
    if (opts.force) this.recent.forget(room);
    if (!this.recent.first(room)) return null;
    try {
      const res = await this.worker.cleanup(room, { timeoutMs: opts.timeoutMs });
      this.log.info(`cleaned ${room} (${reason})${res.errors?.length ? ` with errors: ${res.errors.join("; ")}` : ""}`);
      return res;
    } catch (err) {
      // Let a later event (or a retry of this one) try again.
      this.recent.forget(room);
      this.log.warn(`could not clean ${room} (${reason}): ${err instanceof Error ? err.message : String(err)}`);
      if (opts.force) throw err;
      return null;
    }
  }

  /** A room was used again, so a later archive or delete must clean it again. */
  forget(room: string): void {
    this.recent.forget(room);
  }
}

interface ThreadLike {
  id: string;
  guild_id?: string;
  parent_id?: string | null;
  type?: number;
  thread_metadata?: { archived?: boolean };
}

/** The room a raw THREAD_UPDATE / THREAD_DELETE / CHANNEL_DELETE packet should delete, if any. */
export function roomToClean(t: string, d: ThreadLike): { room: string; reason: string } | null {
  if (!d?.id || !d.guild_id) return null; // DMs have no room
  const isThread = d.type !== undefined ? THREAD_CHANNEL_TYPES.includes(d.type) : Boolean(d.parent_id);
  if (t === "THREAD_UPDATE") {
    if (!d.thread_metadata?.archived || !d.parent_id) return null;
    return { room: threadRoom(d.guild_id, d.parent_id, d.id), reason: "thread archived" };
  }
  if (t === "THREAD_DELETE" || (t === "CHANNEL_DELETE" && isThread)) {
    if (!d.parent_id) return null;
    return { room: threadRoom(d.guild_id, d.parent_id, d.id), reason: "thread deleted" };
  }
  if (t === "CHANNEL_DELETE") return { room: channelRoom(d.guild_id, d.id), reason: "channel deleted" };
  return null;
}

/**
 * The room a raw GUILD_DELETE removes. `unavailable: true` is an outage: the
 * server comes back with everything in it, so nothing is deleted.
 */
export function guildRoomToClean(d: { id?: string; unavailable?: boolean }): { room: string; reason: string } | null {
  if (!d?.id || d.unavailable === true) return null;
  return { room: workspaceRoomId("discord", d.id), reason: "removed from the server" };
}

/** A server's room holds every room the bot had there: its clean-up may take a while. */
function cleanGuild(cleaner: RoomCleaner, d: { id?: string; unavailable?: boolean }): void {
  const target = guildRoomToClean(d);
  if (target) void cleaner.clean(target.room, target.reason, { timeoutMs: WORKSPACE_CLEANUP_TIMEOUT_MS });
}

export function attachCleanup(client: Client, cleaner: RoomCleaner, log: Logger): void {
  const handle = (t: string, d: ThreadLike) => {
    let target: ReturnType<typeof roomToClean>;
    try {
      target = roomToClean(t, d);
    } catch (err) {
      return log.warn(`ignoring ${t} for ${d?.id}: ${String(err)}`);
    }
    if (target) void cleaner.clean(target.room, target.reason);
  };
  // Raw packets: the only path for channels discord.js never cached.
  client.on(Events.Raw, (packet: GatewayDispatchPayload) => {
    if (packet?.t === "THREAD_UPDATE" || packet?.t === "THREAD_DELETE" || packet?.t === "CHANNEL_DELETE") {
      handle(packet.t, packet.d as ThreadLike);
    }
    if (packet?.t === "GUILD_DELETE") cleanGuild(cleaner, packet.d as { id?: string; unavailable?: boolean });
  });
  // The cached path: same rooms, deduplicated by the cleaner.
  client.on(Events.ThreadUpdate, (_old, thread) => {
    if (thread.archived) handle("THREAD_UPDATE", { id: thread.id, guild_id: thread.guildId, parent_id: thread.parentId, type: thread.type, thread_metadata: { archived: true } });
  });
  client.on(Events.ThreadDelete, (thread) => handle("THREAD_DELETE", { id: thread.id, guild_id: thread.guildId, parent_id: thread.parentId, type: thread.type }));
  // discord.js emits this only when the bot really left (an outage is GuildUnavailable).
  client.on(Events.GuildDelete, (guild) => cleanGuild(cleaner, { id: guild.id }));
  client.on(Events.ChannelDelete, (channel) => {
    if (!channel.isDMBased()) handle("CHANNEL_DELETE", { id: channel.id, guild_id: channel.guildId, parent_id: channel.parentId, type: channel.type });
  });
}
