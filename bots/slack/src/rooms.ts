import { roomId } from "@duet/shared";

/**
 * Which Duet room a Slack conversation maps to. A channel is one room; with the
 * `thread` scope each thread is its own room, recorded under the channel room so
 * archiving the channel removes them all.
 */

export type RoomScope = "channel" | "thread";

export function channelRoom(teamId: string, channelId: string): string {
  return roomId("slack", teamId, channelId);
}

export interface MessagePlace {
  teamId: string;
  channel: string;
  /** The message's own ts. */
  ts: string;
  /** Set when the message was posted inside a thread. */
  threadTs?: string;
}

/** The thread the reply goes to: the message's thread, or a new one under a top-level message. */
export function replyThread(place: MessagePlace): string {
  return place.threadTs ?? place.ts;
}

export function mentionRoom(place: MessagePlace, scope: RoomScope): string {
  if (scope === "thread") return roomId("slack", place.teamId, place.channel, replyThread(place));
  return channelRoom(place.teamId, place.channel);
}
