/**
 * Stopping a live turn, in words every front end shows the same way: a Stop
 * button's private answer to whoever clicked it, and `/duet stop`'s reply.
 */

/** The Worker's stop for a room (WorkerClient.stop): `stopped` is false when no turn was running. */
export type StopTurn = (room: string, userId: string) => Promise<{ stopped: boolean }>;

export const STOP_WORDS = {
  stopping: "Stopping Duet's answer.",
  nothingToStop: "Nothing to stop: Duet is not answering in this room right now.",
  /** A button whose room is not the conversation it was clicked in (forged, or moved). */
  notThisRoom: "That Stop button belongs to another conversation.",
} as const;
