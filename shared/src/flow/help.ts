import type { DuetCommand } from "../commands/commands.ts";
import { COMMAND_PURPOSES as PURPOSE_WORDS, POLICY_LINES, PURPOSE_NOTES } from "../words/chat-help.ts";
import { modelLine } from "../words/settings.ts";
import { onlyAskerSees } from "./audience.ts";

/**
 * What each command does (words/chat-help.ts), for every front end; how to type it is
 * the front end's (`/duet ask` in Slack, `/duet ask prompt:` in Discord, `!CMD`
 * in the CLI chat), so the help each shows is true where it is shown.
 */

type CommandKind = DuetCommand["kind"];

/** Typed here, so a command added without its words fails to compile. */
const COMMAND_PURPOSES: Record<CommandKind, string> = PURPOSE_WORDS;

/** The order help lists the commands in. */
const COMMAND_ORDER: readonly CommandKind[] = ["ask", "run", "stop", "get", "history", "reset", "policy", "model", "repo", "pr", "tools", "usage", "audit", "schedule", "schedules", "unschedule", "remember", "memory", "forget", "help"];

/** Where help is shown: a chat (private replies, schedules answering in the channel) or a terminal (one reader, answers kept in the room's history). */
export type HelpPlace = "chat" | "terminal";

/** What a command does, said as true in `place`. */
function purposeIn(kind: CommandKind, place: HelpPlace): string {
  const purpose = COMMAND_PURPOSES[kind];
  if (kind === "schedule") return `${purpose}; ${place === "chat" ? PURPOSE_NOTES.scheduleInChat : PURPOSE_NOTES.scheduleInTerminal}`;
  return place === "chat" && onlyAskerSees(kind) && kind !== "help" ? `${purpose} ${PURPOSE_NOTES.onlyYou}` : purpose;
}

/** `[how to type it, what it does]` per command, for a front end to lay out; `syntax` is that front end's. */
export function helpEntries(syntax: Record<CommandKind, string>, place: HelpPlace = "chat"): [string, string][] {
  return COMMAND_ORDER.map((kind) => [syntax[kind], purposeIn(kind, place)]);
}

/** What help adds about how the room is set up: the sandbox's network and the run policy, when known. */
export function settingsLines(reply: { network?: string; runPolicy?: "auto" | "approve"; model?: string }): string[] {
  const lines: string[] = [];
  if (reply.model) lines.push(modelLine(reply.model));
  if (reply.network) lines.push(reply.network);
  if (reply.runPolicy) lines.push(POLICY_LINES[reply.runPolicy]);
  return lines;
}
