import { ROOM_ID_PATTERN } from "./limits.ts";

/**
 * Room ids are `<platform>-<workspace>-<channel>[-<thread>]`. A thread room is
 * recorded under its channel room so that deleting the channel cleans both.
 */

export const PLATFORMS = ["slack", "discord", "cli"] as const;
export type Platform = (typeof PLATFORMS)[number];

/** Segments may not contain '-', which separates them; anything else unsafe becomes '_'. */
function segment(value: string): string {
  const cleaned = value.replace(/[^A-Za-z0-9._]/g, "_");
  if (!cleaned) throw new Error("room id segment cannot be empty");
  return cleaned;
}

export function roomId(platform: Platform, workspace: string, channel: string, thread?: string): string {
  const parts = [platform, segment(workspace), segment(channel)];
  if (thread) parts.push(segment(thread));
  const id = parts.join("-");
  if (!isValidRoomId(id)) throw new Error(`room id too long: ${id.length} characters`);
  return id;
}

export function isValidRoomId(id: string): boolean {
  return ROOM_ID_PATTERN.test(id);
}

/** The channel room a thread room belongs to, or null for a channel (or free-form) room. */
export function parentRoomId(id: string): string | null {
  const parts = id.split("-");
  if (parts.length !== 4 || !(PLATFORMS as readonly string[]).includes(parts[0])) return null;
  if (parts.some((p) => p.length === 0)) return null;
  return parts.slice(0, 3).join("-");
}

/** The sandbox that belongs to a room (the original design's naming). */
export function sandboxName(id: string): string {
  return `sandbox-${id}`;
}
