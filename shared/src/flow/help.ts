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
  history: "show the recent conversation",
  reset: "wipe the conversation and destroy the sandbox",
  policy: "show the run policy, or set it: `auto` runs Duet's commands at once, `approve` waits for Run or Skip",
  model: "show the model Duet uses here and the choices, or switch it",
  usage: "show the model tokens used here today and this week, by person and model, and the budgets",
  audit: "show who ran or skipped which commands here, and policy changes and resets",
  stop: "stop Duet's answer in progress (anyone here can)",
  get: "post a file from the sandbox's workspace here, e.g. `uploads/data.csv`",
  schedule: "ask Duet on its own at set times (`every 2h`, `every weekday 09:00 Europe/Berlin`, a cron line)",
  schedules: "list this room's schedules with their ids and next runs",
  unschedule: "remove a schedule by its id",
  remember: "pin a fact Duet keeps in mind in every answer here, e.g. which port staging runs on",
  memory: "list the facts pinned here, with who pinned each and when",
  forget: "unpin a fact by its number, as the memory command lists it",
  help: "show this help",
};

/** The order help lists the commands in. */
const COMMAND_ORDER: readonly CommandKind[] = ["ask", "run", "stop", "get", "history", "reset", "policy", "model", "usage", "audit", "schedule", "schedules", "unschedule", "remember", "memory", "forget", "help"];

/** Where help is shown: a chat (private replies, schedules answering in the channel) or a terminal (one reader, answers kept in the room's history). */
export type HelpPlace = "chat" | "terminal";

/** What a command does, said as true in `place`. */
function purposeIn(kind: CommandKind, place: HelpPlace): string {
  const purpose = COMMAND_PURPOSES[kind];
  if (kind === "schedule") return `${purpose}; ${place === "chat" ? "each answer is a new message here" : "each answer is kept in the room's history"}`;
  return place === "chat" && answersPrivately(kind) && kind !== "help" ? `${purpose} (only you see it)` : purpose;
}

/** `[how to type it, what it does]` per command, for a front end to lay out; `syntax` is that front end's. */
export function helpEntries(syntax: Record<CommandKind, string>, place: HelpPlace = "chat"): [string, string][] {
  return COMMAND_ORDER.map((kind) => [syntax[kind], purposeIn(kind, place)]);
}

/** Commands whose answer only the asker sees: reading the room's past, or how to use Duet. */
export function answersPrivately(kind: CommandKind): boolean {
  return kind === "history" || kind === "help" || kind === "audit" || kind === "schedules" || kind === "usage" || kind === "memory";
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
