import { DELIVERY_PLATFORMS, type DeliveryTarget } from "@duet/shared";

/**
 * Where something the room says on its own (a note from GitHub) is posted,
 * read from the room's id: a Slack thread room (`slack-<team>-<channel>-<thread ts>`)
 * posts in that thread, a Discord thread room (`discord-<guild>-<channel>-<thread>`)
 * in the thread (a channel of its own on Discord), a channel room as a new
 * message in the channel. Null for a room no bot delivers to (the CLI's).
 */
export function chatTargetOf(roomId: string): DeliveryTarget | null {
  const [platform, workspace, channel, thread, ...rest] = roomId.split("-");
  if (rest.length || !workspace || !channel || !(DELIVERY_PLATFORMS as readonly string[]).includes(platform)) return null;
  // In a Slack thread, `ts` names the thread's first message: the bot then posts a reply as in the thread it
  // answers (no "who asked" line, which a note nobody asked for has no one to name) and marks that message done.
  if (platform === "slack") return { platform, place: { channel, team: workspace, ...(thread ? { threadTs: thread, ts: thread } : {}) } };
  return { platform: "discord", place: { channel: thread || channel } };
}
