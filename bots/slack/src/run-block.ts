import { ANSWER_NOTES, codeBlock, describeRun, headTail, type RunResult } from "@duet/shared";
import { escapeSlack } from "./mrkdwn.ts";
import type { Block, Upload } from "./slack-api.ts";

/**
 * One command's result as one Slack section: `$ cmd`, its status, and its output
 * in a code block. Output that does not fit in a section (3,000 characters) is
 * shown as head and tail, and the whole of it goes to the thread as a file.
 */

/** Slack rejects a section whose text is longer than this. */
export const SECTION_MAX_CHARS = 3000;
/** A command longer than this is shown in the code block, cut, instead of inline. */
const INLINE_CMD_MAX_CHARS = 200;
/** Room kept for the line under a cut output that names the file. */
const NOTE_RESERVE = 120;

export interface RunBlock {
  block: Block;
  upload?: Upload;
}

/** `command` is `$ <cmd>`; it goes inline when it is one short line, else into the code block. */
function commandLine(command: string): { inline: string; inBlock: string } {
  const oneLine = !/[`\n]/.test(command) && command.length <= INLINE_CMD_MAX_CHARS;
  if (oneLine) return { inline: `\`${escapeSlack(command)}\``, inBlock: "" };
  const shown = command.length > INLINE_CMD_MAX_CHARS * 2 ? `${command.slice(0, INLINE_CMD_MAX_CHARS * 2)} …` : command;
  return { inline: "_command:_", inBlock: `${shown}\n` };
}

/** The output cut so that its code block, escaped for Slack, fits in `budget` characters. */
function fitOutput(output: string, prefix: string, budget: number, note: string): string {
  let max = budget;
  // Escaping (&amp;, fence breaks) makes text longer, so shrink until the block fits.
  for (let i = 0; i < 10; i++) {
    const cut = headTail(output, max, note).text;
    const over = codeBlock(prefix + escapeSlack(cut)).length - budget;
    if (over <= 0) return cut;
    max = Math.max(100, max - over - 16);
  }
  return headTail(output, Math.floor(budget / 6), note).text;
}

/**
 * `where` completes "the full output is in <file> …" (in this thread, in this channel).
 */
export function renderRun(run: RunResult, index: number, where = "in this thread"): RunBlock {
  const d = describeRun(run);
  const { inline, inBlock } = commandLine(d.command);
  const header = `${d.ok ? ":white_check_mark:" : ":x:"} ${inline}  ·  ${escapeSlack(d.status)}`;
  const prefix = escapeSlack(inBlock);
  const whole = `${header}\n${codeBlock(prefix + escapeSlack(d.output))}`;
  if (whole.length <= SECTION_MAX_CHARS) return { block: section(whole) };
  const filename = `duet-output-${index + 1}.txt`;
  const cut = fitOutput(d.output, prefix, SECTION_MAX_CHARS - header.length - 1 - NOTE_RESERVE, ANSWER_NOTES.fullOutputIn(filename));
  const text = `${header}\n${codeBlock(prefix + escapeSlack(cut))}\n_${ANSWER_NOTES.fullOutputAt(`\`${filename}\``, where)}_`;
  return {
    block: section(text),
    upload: { filename, title: d.command.slice(0, 120), content: `${d.command}\n${d.output}\n` },
  };
}

export function section(text: string): Block {
  return { type: "section", text: { type: "mrkdwn", text } };
}

export function context(text: string): Block {
  return { type: "context", elements: [{ type: "mrkdwn", text }] };
}
