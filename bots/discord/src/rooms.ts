import { roomId } from "@duet/shared";
import type { Interaction } from "discord.js";

/**
 * Which Duet room a Discord conversation maps to: a text channel is
 * `discord-<guild>-<channel>`, a thread `discord-<guild>-<parent>-<thread>`, so
 * the Worker records the thread room under its channel room and deleting the
 * channel room removes the thread rooms too.
 */

/** Discord channel types that are threads: announcement (10), public (11), private (12). */
export const THREAD_CHANNEL_TYPES: readonly number[] = [10, 11, 12];

export function channelRoom(guildId: string, channelId: string): string {
  return roomId("discord", guildId, channelId);
}

export function threadRoom(guildId: string, parentId: string, threadId: string): string {
  return roomId("discord", guildId, parentId, threadId);
}

export interface ChannelPlace {
  guildId: string;
  channelId: string;
  /** Set for threads: the text (or forum) channel the thread lives in. */
  parentId?: string | null;
  isThread: boolean;
}

/** The room for a place; a thread whose parent is unknown falls back to a room of its own channel id. */
export function roomFor(place: ChannelPlace): string {
  if (place.isThread && place.parentId) return threadRoom(place.guildId, place.parentId, place.channelId);
  return channelRoom(place.guildId, place.channelId);
}

/** The room of the channel or thread an interaction came from; null outside a server (a DM). */
export function roomHere(interaction: Interaction): string | null {
  if (!interaction.guildId || !interaction.channelId) return null;
  const thread = interaction.channel?.isThread() ? interaction.channel : null;
  return roomFor({ guildId: interaction.guildId, channelId: interaction.channelId, parentId: thread?.parentId ?? null, isThread: Boolean(thread) });
}
