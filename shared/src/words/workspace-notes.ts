/**
 * What Duet says about the room's workspace itself, beside a turn's answer or a
 * command's output (the Worker writes these; the bots show them as they come).
 */

/** The start of the note when the workspace could not be saved after a turn; the reason follows. */
export const WORKSPACE_NOT_SAVED = "The workspace was not saved, so what changed since its last save will be lost when the sandbox sleeps:";
