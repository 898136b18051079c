import { formatCount } from "../format/output.ts";

/**
 * How to type a command, said when it was typed wrong. Each surface names its
 * own commands, so the example is one its people can copy: a chat's
 * `/duet ask how…`, Discord's `/duet ask prompt:how…`, the CLI's
 * `duet schedule demo 'every 2h' …`.
 */

/** How a surface writes Duet's command `sub` with its arguments (in the order the command takes them), for an example. */
export type Spelling = (sub: string, ...args: string[]) => string;

/** A chat's text command (Slack's `/duet`). */
export const CHAT_SPELLING: Spelling = (sub, ...args) => ["/duet", sub, ...args].join(" ");

export const askNeedsQuestion = (spell: Spelling = CHAT_SPELLING) => `\`${spell("ask")}\` needs a question, e.g. \`${spell("ask", "how do I find large files?")}\``;

export const runNeedsCommand = (spell: Spelling = CHAT_SPELLING) => `\`${spell("run")}\` needs a command, e.g. \`${spell("run", "ls -la")}\``;

/** `word` is already quoted safe for a code span. */
export const unknownPolicy = (spell: Spelling, word: string) =>
  `Unknown run policy \`${word}\`. \`${spell("policy")}\` takes \`auto\` (commands run at once) or \`approve\` (each waits for Run or Skip), or nothing to show the current one.`;

/** `word` is already quoted safe for a code span. */
export const notModelName = (spell: Spelling, word: string) => `\`${word}\` is not a model name. \`${spell("model")}\` shows the choices; \`${spell("model", "NAME")}\` switches.`;

/** `word` is already quoted safe for a code span. */
export const unknownCommand = (word: string) => `Unknown command \`${word}\`.`;

export const scheduleUsage = (spell: Spelling = CHAT_SPELLING) =>
  `\`${spell("schedule")}\` needs when and what to ask, e.g. \`${spell("schedule", "every weekday 09:00 Europe/Berlin", "summarise yesterday's failed CI runs")}\` or \`${spell("schedule", "every 2h", "check disk space")}\`.`;

export const unscheduleNeedsId = (spell: Spelling = CHAT_SPELLING) =>
  `\`${spell("unschedule")}\` needs the schedule's id, as \`${spell("schedules")}\` lists it, e.g. \`${spell("unschedule", "3f9a1c2b")}\`.`;

/** `word` is already quoted safe for a code span. */
export const notScheduleId = (spell: Spelling, word: string) => `\`${word}\` is not a schedule id; \`${spell("schedules")}\` lists them.`;

export const tooLong = (what: string, length: number, max: number) =>
  `That ${what} is ${formatCount(length)} characters long; Duet accepts at most ${formatCount(max)}. Please shorten it.`;

/** A Discord command outside a server, where Duet has no room. */
export const DISCORD_DM_ANSWER = "Duet works in servers: add it to a server, then `@Duet` it in a channel or use `/duet ask`.";
