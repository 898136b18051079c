import type { DuetCommand } from "../commands.ts";

/**
 * What each command does, in words every front end shares; how to type it is
 * the front end's (`/duet ask` in Slack, `/duet ask prompt:` in Discord, `!CMD`
 * in the CLI chat), so the help each shows is true where it is shown.
 */

type CommandKind = DuetCommand["kind"];

const COMMAND_PURPOSES: Record<CommandKind, string> = {
  ask: "ask Duet; it answers and may run commands in the sandbox",
  run: "run a shell command in the sandbox yourself, without the AI",
  history: "show the recent conversation (only you see it)",
  reset: "wipe the conversation and destroy the sandbox",
  help: "show this help",
};

/** The order help lists the commands in. */
const COMMAND_ORDER: readonly CommandKind[] = ["ask", "run", "history", "reset", "help"];

/** `[how to type it, what it does]` per command, for a front end to lay out; `syntax` is that front end's. */
export function helpEntries(syntax: Record<CommandKind, string>): [string, string][] {
  return COMMAND_ORDER.map((kind) => [syntax[kind], COMMAND_PURPOSES[kind]]);
}

/** Commands whose answer only the asker sees: reading the room's past, or how to use Duet. */
export function answersPrivately(kind: CommandKind): boolean {
  return kind === "history" || kind === "help";
}
