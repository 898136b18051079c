import { describeForUser } from "../wire/errors.ts";
import type { RoomListResponse } from "../wire/home-schemas.ts";
import { workspaceRoomId } from "../wire/room-id.ts";
import type { FlowDeps } from "./types.ts";

/**
 * A person's home view: the rooms of the channels they are in, with their
 * settings, and their use today, asked of the Worker (never a bot's memory,
 * so every replica shows the same). The bot finds the channels and draws the
 * answer; a failure is one line for the person and one for the operator.
 */
export async function homeListing(
  deps: FlowDeps,
  place: { platform: "slack" | "discord"; workspace: string; userId: string; channels: string[]; limit: number },
): Promise<{ listing: RoomListResponse } | { error: string }> {
  const room = workspaceRoomId(place.platform, place.workspace);
  try {
    return { listing: await deps.worker.listRooms(room, { userId: place.userId, channels: place.channels, limit: place.limit }) };
  } catch (err) {
    deps.log(`listing the rooms of ${room} failed: ${err instanceof Error ? err.message : String(err)}`);
    return { error: describeForUser(err) };
  }
}
