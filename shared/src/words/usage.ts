import { formatCount } from "../format/output.ts";

/**
 * How to type a command, said when it was typed wrong. `typed` is how the front
 * end's people start a command (`/duet` for a chat's text command), so the
 * example is one they can copy.
 */

export const askNeedsQuestion = (typed: string) => `\`${typed} ask\` needs a question, e.g. \`${typed} ask how do I find large files?\``;

export const runNeedsCommand = (typed: string) => `\`${typed} run\` needs a command, e.g. \`${typed} run ls -la\``;

/** `word` is already quoted safe for a code span. */
export const unknownPolicy = (typed: string, word: string) =>
  `Unknown run policy \`${word}\`. \`${typed} policy\` takes \`auto\` (commands run at once) or \`approve\` (each waits for Run or Skip), or nothing to show the current one.`;

/** `word` is already quoted safe for a code span. */
export const unknownCommand = (word: string) => `Unknown command \`${word}\`.`;

export const tooLong = (what: string, length: number, max: number) =>
  `That ${what} is ${formatCount(length)} characters long; Duet accepts at most ${formatCount(max)}. Please shorten it.`;
