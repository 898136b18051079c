import { ANSWER_NOTES, chunkMessage, cleanModelText, type LiveAnswer, type LiveRunView, liveRunViews } from "@duet/shared";
import { escapeSlack, markdownToMrkdwn } from "../mrkdwn.ts";
import { context, SECTION_MAX_CHARS, section } from "../run-block.ts";
import type { Block } from "../slack-api.ts";

/**
 * How a live answer looks in Slack while it grows: as stream chunks (the text
 * as Markdown, each command as a task that is in progress, then complete or in
 * error), or, where streaming is not offered, as a message of blocks updated in
 * place. Both carry a Stop button whose value names the room.
 */

/** The action id of the Stop button; its value is the room id. */
export const STOP_ACTION_ID = "duet_stop";
/** Shown as the notification text while the answer grows. */
export const LIVE_FALLBACK = "Duet is answering…";
/** Blocks kept for a heading, the command lines and the Stop button; Slack allows 50 in all. */
const TEXT_BLOCKS_MAX = 30;
const RUN_BLOCKS_MAX = 18;
/** Slack shows a task's title on one line; a long command is cut. */
const TASK_TITLE_MAX = 150;

export function stopButton(room: string): Block {
  return {
    type: "actions",
    block_id: "duet_live",
    elements: [{ type: "button", action_id: STOP_ACTION_ID, style: "danger", text: { type: "plain_text", text: "Stop" }, value: room }],
  };
}

const ICON: Record<LiveRunView["state"], string> = { running: ":hourglass_flowing_sand:", ok: ":white_check_mark:", failed: ":x:" };

/**
 * The live answer as blocks: `heading` (a slash answer's "who asked" line), the
 * text so far, a line per command, the Stop button.
 */
export function liveBlocks(answer: LiveAnswer, room: string, heading: readonly Block[] = []): Block[] {
  const text = markdownToMrkdwn(cleanModelText(answer.text));
  const sections = text ? chunkMessage(text, SECTION_MAX_CHARS).filter((c) => c.trim()).map(section) : [];
  // Past the budget the newest text is what matters while it grows; the final message has all of it.
  const shownText = sections.length > TEXT_BLOCKS_MAX ? [context("_…_"), ...sections.slice(-(TEXT_BLOCKS_MAX - 1))] : sections;
  const runs = liveRunViews(answer).map((r) => context(`${ICON[r.state]} \`${escapeSlack(r.command).replace(/`/g, "'")}\`  ·  ${escapeSlack(r.status)}`));
  const shownRuns = runs.length > RUN_BLOCKS_MAX ? runs.slice(-RUN_BLOCKS_MAX) : runs;
  const body = [...shownText, ...shownRuns];
  return [...heading, ...(body.length ? body : [context(`_${ANSWER_NOTES.working}_`)]), stopButton(room)];
}

export interface TaskChunk {
  type: "task_update";
  id: string;
  title: string;
  status: "in_progress" | "complete" | "error";
  details?: string;
}

const TASK_STATUS: Record<LiveRunView["state"], TaskChunk["status"]> = { running: "in_progress", ok: "complete", failed: "error" };

/** Each command as a task_update chunk: in progress, then complete (exit 0) or error, with its status. */
export function taskChunks(answer: LiveAnswer): TaskChunk[] {
  return liveRunViews(answer).map((r) => ({
    type: "task_update",
    id: `run-${r.id}`,
    title: r.command.length > TASK_TITLE_MAX ? `${r.command.slice(0, TASK_TITLE_MAX - 1)}…` : r.command,
    status: TASK_STATUS[r.state],
    ...(r.state === "running" ? {} : { details: r.status }),
  }));
}

/** Streamed text is Markdown, the model's cleaned as in any message; Slack's control characters are escaped so output cannot ping a channel. */
export function streamedText(answer: LiveAnswer): string {
  return escapeSlack(cleanModelText(answer.text));
}
