/**
 * Stopping a live turn, in words every front end shows the same way: a Stop
 * button's private answer to whoever clicked it, `/duet stop`'s reply and the
 * terminal's Ctrl-C.
 */

/** The Worker's stop for a room (WorkerClient.stop): `stopped` is false when no turn was running. */
export type StopTurn = (room: string, userId: string) => Promise<{ stopped: boolean }>;

export const STOP_WORDS = {
  stopping: "Stopping Duet's answer.",
  /** Ctrl-C during a direct run (`duet run`, `!cmd`). */
  stoppingCommand: "Stopping the command.",
  nothingToStop: "Nothing to stop: Duet is not answering in this room right now.",
  /** A button whose room is not the conversation it was clicked in (forged, or moved). */
  notThisRoom: "That Stop button belongs to another conversation.",
  /** The Worker could not be asked to stop; `reason` is the failure in words. */
  failed: (reason: string) => `Duet could not stop that answer: ${reason}`,
} as const;
