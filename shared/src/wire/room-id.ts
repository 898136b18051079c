import { ROOM_ID_PATTERN } from "./limits.ts";

/**
 * Room ids are `<platform>-<workspace>-<channel>[-<thread>]`. Rooms form a tree
 * for clean-up: a thread room is recorded under its channel room, and a Slack or
 * Discord channel room under its workspace room (`<platform>-<workspace>`), so
 * deleting a channel cleans its threads, and removing Duet from a workspace (an
 * uninstall, the bot leaving a server) cleans every room it had there.
 */

/**
 * The platforms with a bot, the one list a new platform is added to: each has
 * workspaces Duet can be removed from (a Slack team, a Discord server) and a
 * feed of answers its bots deliver (delivery-target.ts reads it).
 */
export const BOT_PLATFORMS = ["slack", "discord"] as const;
/** Every platform a room id may name: the bots' and the CLI's. */
export const PLATFORMS = [...BOT_PLATFORMS, "cli"] as const;
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

/** Platforms whose channels belong to a workspace Duet can be removed from: the bots'. */
const WORKSPACE_PLATFORMS = BOT_PLATFORMS;
type WorkspacePlatform = (typeof WORKSPACE_PLATFORMS)[number];

/**
 * The room a room is recorded under: a thread room's channel room, a Slack or
 * Discord channel room's workspace room; null for a workspace room or a free-form one.
 */
export function parentRoomId(id: string): string | null {
  const parts = id.split("-");
  if (parts.some((p) => p.length === 0) || !(PLATFORMS as readonly string[]).includes(parts[0])) return null;
  if (parts.length === 4) return parts.slice(0, 3).join("-");
  if (parts.length === 3 && (WORKSPACE_PLATFORMS as readonly string[]).includes(parts[0])) return parts.slice(0, 2).join("-");
  return null;
}

/**
 * The channel room of a thread room, else null. A thread that set no run
 * policy of its own follows its channel's.
 */
export function channelOfThread(id: string): string | null {
  return id.split("-").length === 4 ? parentRoomId(id) : null;
}

/** The room that holds every room of a Slack team or Discord server. */
export function workspaceRoomId(platform: WorkspacePlatform, workspace: string): string {
  return `${platform}-${segment(workspace)}`;
}

/**
 * The workspace a room belongs to, `<platform>-<workspace>` (the Slack team, Discord
 * server or CLI workspace), for sharing a resource fairly between workspaces; a
 * free-form id of fewer than three segments is its own.
 */
export function workspaceOfRoom(id: string): string {
  const parts = id.split("-");
  return parts.length >= 3 ? parts.slice(0, 2).join("-") : id;
}

/** The sandbox that belongs to a room; the Worker's API names it so in `sandboxName`. */
export function sandboxName(id: string): string {
  return `sandbox-${id}`;
}

/**
 * True when `room` is the conversation room `here` or one of its thread rooms:
 * a button that names a room is only acted on in that room's conversation.
 */
export function isRoomOf(room: string, here: string): boolean {
  return room === here || room.startsWith(`${here}-`);
}

/**
 * The chat channel a Slack or Discord channel room names, as a delivery
 * target (where a scheduled ask set from the CLI posts); null for any other room.
 */
export function channelTargetOf(id: string): { platform: WorkspacePlatform; place: { channel: string } } | null {
  const parts = id.split("-");
  if (parts.length !== 3 || parts.some((p) => !p) || !(WORKSPACE_PLATFORMS as readonly string[]).includes(parts[0])) return null;
  return { platform: parts[0] as WorkspacePlatform, place: { channel: parts[2] } };
}
