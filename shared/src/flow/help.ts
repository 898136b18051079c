import type { DuetCommand } from "../commands.ts";
import { modelLine } from "../words/settings.ts";

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
  policy: "show the run policy, or set it: `auto` runs Duet's commands at once, `approve` waits for Run or Skip",
  model: "show the model Duet uses here and the choices, or switch it",
  usage: "show the model tokens used here today and this week, by person and model, and the budgets (only you see it)",
  audit: "show who ran or skipped which commands here, and policy changes and resets (only you see it)",
  stop: "stop Duet's answer in progress (anyone here can)",
  help: "show this help",
};

/** The order help lists the commands in. */
const COMMAND_ORDER: readonly CommandKind[] = ["ask", "run", "stop", "history", "reset", "policy", "model", "usage", "audit", "help"];

/** `[how to type it, what it does]` per command, for a front end to lay out; `syntax` is that front end's. */
export function helpEntries(syntax: Record<CommandKind, string>): [string, string][] {
  return COMMAND_ORDER.map((kind) => [syntax[kind], COMMAND_PURPOSES[kind]]);
}

/** Commands whose answer only the asker sees: reading the room's past, or how to use Duet. */
export function answersPrivately(kind: CommandKind): boolean {
  return kind === "history" || kind === "help" || kind === "audit" || kind === "usage";
}

/** What help adds about how the room is set up: the sandbox's network and the run policy, when known. */
export function settingsLines(reply: { network?: string; runPolicy?: "auto" | "approve"; model?: string }): string[] {
  const lines: string[] = [];
  if (reply.model) lines.push(modelLine(reply.model));
  if (reply.network) lines.push(reply.network);
  if (reply.runPolicy === "approve") lines.push("Run policy here: approve. Commands Duet proposes wait for someone allowed to click Run or Skip.");
  if (reply.runPolicy === "auto") lines.push("Run policy here: auto. Duet runs the commands it proposes at once.");
  return lines;
}
