import type { PendingApproval, RunResult } from "../wire/schemas.ts";

/**
 * The sentences around an answer that every front end shows the same way: what
 * was not run, a stopped answer, the room's history, a reset and a decision.
 * A front end adds only its markup (an emoji, bold, a mention) around them.
 */

/** When an answer has no text and no command to show. */
export const NOTHING_TO_SAY = "Duet had nothing to say.";

/** Under an answer someone stopped: what it shows is what was written and run before the stop. */
export const STOPPED_NOTE = "Stopped before it finished.";

/**
 * Commands past the per-reply cap. The cap is what the answer ran plus what it
 * left waiting for approval (under `approve` nothing runs, yet the proposals count).
 */
export function notRunNote(answer: { runs: readonly RunResult[]; pending?: readonly PendingApproval[] }, commands: readonly string[]): string {
  return notRunText(answer.runs.length + (answer.pending?.length ?? 0), commands);
}

/** `Not run (limit of N commands per reply): a, b`, the commands already in the front end's markup. */
export function notRunText(limit: number, commands: readonly string[]): string {
  return `Not run (limit of ${limit} commands per reply): ${commands.join(", ")}`;
}

/** Messages `/duet history` shows, newest last: history is a reminder, not a transcript. */
export const HISTORY_SHOWN = 10;
/** Characters of each history message shown; the whole text stays in the room. */
export const HISTORY_MESSAGE_CHARS = 280;

/** The room's history has nothing yet. */
export const NO_HISTORY = "This room has no history yet. Ask Duet something to start.";

/** The heading of `/duet history`. */
export function historyTitle(shown: number, total: number): string {
  return `Last ${shown} of ${total} message${total === 1 ? "" : "s"} in this room:`;
}

/** One history message on one line, cut to HISTORY_MESSAGE_CHARS. */
export function historySnippet(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > HISTORY_MESSAGE_CHARS ? `${flat.slice(0, HISTORY_MESSAGE_CHARS - 1)}…` : flat;
}

/** After `/duet reset`: who reset the room, and what could not be removed (a second reset retries it). */
export function resetText(person: string, errors: readonly string[], resetCommand: string): string {
  const done = `${person} reset Duet here: the conversation history is cleared and the sandbox is removed.`;
  return errors.length ? `${done} Some parts could not be removed (${errors.join("; ")}); ${resetCommand} again retries them.` : done;
}

/** A decision shown on its own (its proposal's message shows the command). */
export function decidedText(person: string, decision: "run" | "skip"): string {
  return `${person} ${decision === "run" ? "ran" : "skipped"} a proposed command.`;
}

/** A Run or Skip click by the person whose question the command answers, where DUET_APPROVE_OWN=no. */
export const OWN_PROPOSAL = "You asked the question this command answers, so someone else must run or skip it; nothing was run.";

/** A Run or Skip click on a button this bot did not make (forged, or from another app). */
export const NOT_A_PROPOSAL = "That button is not one of Duet's proposals.";
