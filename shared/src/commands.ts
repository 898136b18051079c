import { CMD_MAX_CHARS, TEXT_MAX_CHARS } from "./limits.ts";
import { formatCount } from "./format/output.ts";
import { sanitizeChatText } from "./format/sanitize.ts";
import type { RunPolicy } from "./schemas.ts";

export { sanitizeChatText };

/**
 * The commands every front end offers (the chat flow's input), and the text
 * language of Slack's `/duet <subcommand> …`. Discord reads its commands from
 * slash-command options and the CLI from its arguments, into the same DuetCommand.
 */

export type DuetCommand =
  | { kind: "ask"; text: string }
  | { kind: "run"; cmd: string }
  | { kind: "history" }
  | { kind: "reset" }
  /** Without `runPolicy`: show the room's run policy; with it: set it. */
  | { kind: "policy"; runPolicy?: RunPolicy }
  | { kind: "audit" }
  /** Without `model`: show the room's model and the choices; with it: switch. */
  | { kind: "model"; model?: string }
  /** The room's model usage and budgets. */
  | { kind: "usage" }
  | { kind: "stop" }
  | { kind: "help"; problem?: string };

const ASK_EXAMPLE = "`/duet ask` needs a question, e.g. `/duet ask how do I find large files?`";
const RUN_EXAMPLE = "`/duet run` needs a command, e.g. `/duet run ls -la`";
const POLICY_USAGE = "`/duet policy` takes `auto` (commands run at once) or `approve` (each waits for Run or Skip), or nothing to show the current one.";

/** `auto` or `approve` as typed (any case, surrounding spaces ignored); anything else is null. */
export function readRunPolicy(text: string): RunPolicy | null {
  const word = sanitizeChatText(text).toLowerCase();
  return word === "auto" || word === "approve" ? word : null;
}

/** Longest model name accepted (the Worker checks it against DUET_MODELS). */
const MODEL_NAME_MAX_CHARS = 200;

/** `/duet model [name]`: one name (no spaces), or nothing to show the room's model. */
export function readModel(text: string): DuetCommand {
  const name = sanitizeChatText(text);
  if (!name) return { kind: "model" };
  if (/\s/.test(name) || name.length > MODEL_NAME_MAX_CHARS) {
    return { kind: "help", problem: `\`${quoteWord(name)}\` is not a model name. \`/duet model\` shows the choices; \`/duet model NAME\` switches.` };
  }
  return { kind: "model", model: name };
}

/** The word as typed, made safe to quote inside a `code` span and short enough for one line. */
function quoteWord(word: string): string {
  const clean = sanitizeChatText(word).replace(/`/g, "'");
  return clean.length > 30 ? `${clean.slice(0, 30)}…` : clean;
}

const tooLong = (what: string, length: number, max: number) =>
  `That ${what} is ${formatCount(length)} characters long; Duet accepts at most ${formatCount(max)}. Please shorten it.`;

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
      return runPolicy ? { kind: "policy", runPolicy } : { kind: "help", problem: `Unknown run policy \`${quoteWord(rest)}\`. ${POLICY_USAGE}` };
    }
    case "stop":
      return { kind: "stop" };
    case "usage":
      return { kind: "usage" };
    case "model":
      return readModel(rest);
    case "ask": {
      const question = sanitizeChatText(rest);
      if (!question) return { kind: "help", problem: ASK_EXAMPLE };
      if (question.length > TEXT_MAX_CHARS) return { kind: "help", problem: tooLong("question", question.length, TEXT_MAX_CHARS) };
      return { kind: "ask", text: question };
    }
    case "run": {
      if (!rest.trim()) return { kind: "help", problem: RUN_EXAMPLE };
      // Measured as the Worker measures it (trimmed), so the two never disagree.
      const length = rest.trim().length;
      if (length > CMD_MAX_CHARS) return { kind: "help", problem: tooLong("command", length, CMD_MAX_CHARS) };
      return { kind: "run", cmd: rest };
    }
    default:
      return { kind: "help", problem: `Unknown command \`${quoteWord(word)}\`.` };
  }
}
