import { CMD_MAX_CHARS, TEXT_MAX_CHARS } from "../wire/limits.ts";
import { sanitizeChatText } from "../text/sanitize.ts";
import type { RunPolicy } from "../wire/schemas.ts";
import { askNeedsQuestion, CHAT_SPELLING, notModelName, notScheduleId, runNeedsCommand, type Spelling, tooLong, unknownCommand, unknownPolicy, unscheduleNeedsId } from "../words/usage.ts";
import { forgetNeedsNumber, rememberNeedsFact } from "../words/memory.ts";
import { SCHEDULE_ID_PATTERN } from "../wire/schedule-schemas.ts";
import { splitScheduleText } from "./schedule-command.ts";
import { parseWhen } from "../wire/schedule-when.ts";
import { readRepoArgs, type RepoArgs } from "./repo-command.ts";
import { readPrArgs, type PrArgs } from "./pr-command.ts";
import { readToolsArgs, type ToolsArgs } from "./tools-command.ts";

export { sanitizeChatText };

/**
 * The commands every front end offers (the chat flow's input), and the text
 * language of a chat's `/duet <subcommand> …` (Slack's slash command). Discord
 * reads its commands from slash-command options and the CLI from its
 * arguments, into the same DuetCommand.
 */

export type DuetCommand =
  | { kind: "ask"; text: string }
  | { kind: "run"; cmd: string }
  | { kind: "history" }
  /** `keepMemory`: the reset keeps the room's pinned facts (the CLI's --keep-memory; chats ask with buttons instead). */
  | { kind: "reset"; keepMemory?: boolean }
  /** Without `runPolicy`: show the room's run policy; with it: set it. */
  | { kind: "policy"; runPolicy?: RunPolicy }
  | { kind: "audit" }
  /** Without `model`: show the room's model and the choices; with it: switch. */
  | { kind: "model"; model?: string }
  /** The room's model usage and budgets. */
  | { kind: "usage" }
  | { kind: "stop" }
  /** Posts a workspace file in the place; `path` as typed (the flow checks it). */
  | { kind: "get"; path: string }
  /** Ask `ask` on its own at `when` (read by the Worker), answers posted in the channel. */
  | { kind: "schedule"; when: string; ask: string }
  | { kind: "schedules" }
  | { kind: "unschedule"; id: string }
  /** Pin a fact the model keeps in mind in every turn (the Worker checks its length). */
  | { kind: "remember"; fact: string }
  /** The room's pinned facts. */
  | { kind: "memory" }
  /** Unpin fact number `n`, as the memory command lists it. */
  | { kind: "forget"; n: number }
  /** The room's repository: shown, linked or unlinked (`change`), or a typing mistake (`problem`) told to the asker alone. */
  | ({ kind: "repo" } & RepoArgs)
  /** Propose the change in the room's checkout as a pull request, titled `title` (absent: named after what changed). */
  | ({ kind: "pr" } & PrArgs)
  /** The workspace's tool servers (MCP): listed, added, removed, or turned on or off here (`change`), or a typing mistake (`problem`) told to the asker alone. */
  | ({ kind: "tools" } & ToolsArgs)
  | { kind: "help"; problem?: string };

/** `auto` or `approve` as typed (any case, surrounding spaces ignored); anything else is null. */
export function readRunPolicy(text: string): RunPolicy | null {
  const word = sanitizeChatText(text).toLowerCase();
  return word === "auto" || word === "approve" ? word : null;
}

/** Longest model name accepted (the Worker checks it against DUET_MODELS). */
const MODEL_NAME_MAX_CHARS = 200;

/** `/duet model [name]`: one name (no spaces), or nothing to show the room's model; `spell` names the commands in a problem. */
export function readModel(text: string, spell: Spelling = CHAT_SPELLING): DuetCommand {
  const name = sanitizeChatText(text);
  if (!name) return { kind: "model" };
  if (/\s/.test(name) || name.length > MODEL_NAME_MAX_CHARS) {
    return { kind: "help", problem: notModelName(spell, quoteWord(name)) };
  }
  return { kind: "model", model: name };
}

/** The word as typed, made safe to quote inside a `code` span and short enough for one line. */
function quoteWord(word: string): string {
  const clean = sanitizeChatText(word).replace(/`/g, "'");
  return clean.length > 30 ? `${clean.slice(0, 30)}…` : clean;
}

/**
 * Parses the text after `/duet`. The subcommand is case-insensitive; a `run` command is
 * kept exactly as typed after the whitespace that follows `run` (newlines, quotes and
 * all), while `ask` text is cleaned with sanitizeChatText. Anything wrong becomes
 * `{kind: "help", problem}` with a sentence to show above the help.
 */
export function parseDuetCommand(text: string): DuetCommand {
  // Leading invisible characters would otherwise hide the subcommand ("\u200bask").
  const start = /^[\s\u00AD\u180E\u200B-\u200F\u2060-\u2064\uFEFF]*/.exec(text)![0].length;
  const wordEnd = text.slice(start).search(/\s/);
  const word = wordEnd < 0 ? text.slice(start) : text.slice(start, start + wordEnd);
  const rest = wordEnd < 0 ? "" : text.slice(start + wordEnd).replace(/^\s+/, "");
  const sub = sanitizeChatText(word).toLowerCase();

  switch (sub) {
    case "":
    case "help":
    case "-h":
    case "--help":
    case "?":
      return { kind: "help" };
    case "history":
      return { kind: "history" };
    case "reset":
      return { kind: "reset" };
    case "audit":
      return { kind: "audit" };
    case "policy": {
      if (!sanitizeChatText(rest)) return { kind: "policy" };
      const runPolicy = readRunPolicy(rest);
      return runPolicy ? { kind: "policy", runPolicy } : { kind: "help", problem: unknownPolicy(CHAT_SPELLING, quoteWord(rest)) };
    }
    case "stop":
      return { kind: "stop" };
    case "get":
      return { kind: "get", path: rest.trim() };
    case "schedule":
      return scheduleCommand(rest);
    case "schedules":
      return { kind: "schedules" };
    case "unschedule":
      return unscheduleCommand(rest);
    case "usage":
      return { kind: "usage" };
    case "model":
      return readModel(rest);
    case "remember":
      return rememberCommand(rest);
    case "memory":
      return { kind: "memory" };
    case "forget":
      return forgetCommand(rest);
    case "repo":
      return { kind: "repo", ...readRepoArgs(rest) };
    case "pr":
      return { kind: "pr", ...readPrArgs(rest) };
    case "tools":
      return { kind: "tools", ...readToolsArgs(rest) };
    case "ask": {
      const question = sanitizeChatText(rest);
      if (!question) return { kind: "help", problem: askNeedsQuestion() };
      if (question.length > TEXT_MAX_CHARS) return { kind: "help", problem: tooLong("question", question.length, TEXT_MAX_CHARS) };
      return { kind: "ask", text: question };
    }
    case "run": {
      if (!rest.trim()) return { kind: "help", problem: runNeedsCommand() };
      // Measured as the Worker measures it (trimmed), so the two never disagree.
      const length = rest.trim().length;
      if (length > CMD_MAX_CHARS) return { kind: "help", problem: tooLong("command", length, CMD_MAX_CHARS) };
      return { kind: "run", cmd: rest };
    }
    default:
      return { kind: "help", problem: unknownCommand(quoteWord(word)) };
  }
}

/** `/duet schedule <when> <ask>`: split and read here (how often it may run is the Worker's call); the ask is measured as a question is. */
export function scheduleCommand(text: string, spell: Spelling = CHAT_SPELLING): DuetCommand {
  const split = splitScheduleText(text, spell);
  if ("problem" in split) return { kind: "help", problem: split.problem };
  // Read here too, so a typing mistake is told to the person alone (Discord fixes a reply's visibility before the Worker answers).
  try {
    parseWhen(split.when);
  } catch (err) {
    return { kind: "help", problem: (err as Error).message };
  }
  const ask = sanitizeChatText(split.ask);
  if (ask.length > TEXT_MAX_CHARS) return { kind: "help", problem: tooLong("ask", ask.length, TEXT_MAX_CHARS) };
  return { kind: "schedule", when: split.when, ask };
}

/** `/duet unschedule <id>`, the id as `/duet schedules` lists it. */
export function unscheduleCommand(text: string, spell: Spelling = CHAT_SPELLING): DuetCommand {
  const id = sanitizeChatText(text).toLowerCase();
  if (!id) return { kind: "help", problem: unscheduleNeedsId(spell) };
  if (!SCHEDULE_ID_PATTERN.test(id)) return { kind: "help", problem: notScheduleId(spell, quoteWord(text)) };
  return { kind: "unschedule", id };
}

/** `/duet remember <fact>`: the fact as typed, cleaned; its length is the Worker's to check. */
export function rememberCommand(text: string, spell: Spelling = CHAT_SPELLING): DuetCommand {
  const fact = sanitizeChatText(text);
  return fact ? { kind: "remember", fact } : { kind: "help", problem: rememberNeedsFact(spell) };
}

/**
 * `@Duet remember <fact>`: the fact a mention asks to pin, or null for any
 * other mention (one that asks a question, "remember when we…?", is asked).
 */
export function mentionedFact(text: string): string | null {
  const m = /^remember:?\s+(\S[\s\S]*)$/i.exec(sanitizeChatText(text));
  return m && !/\?\s*$/.test(m[1]!) ? m[1]!.trim() : null;
}

/** `/duet forget <n>`: the fact's number as `/duet memory` lists it. */
export function forgetCommand(text: string, spell: Spelling = CHAT_SPELLING): DuetCommand {
  const typed = sanitizeChatText(text);
  const n = /^\d{1,4}$/.test(typed) ? Number(typed) : 0;
  return n >= 1 ? { kind: "forget", n } : { kind: "help", problem: forgetNeedsNumber(spell, typed ? quoteWord(typed) : "") };
}
