import { describeDecision, type DecidedApproval, type PendingApproval, proposalHint, shortCommand } from "@duet/shared";
import { escapeSlack } from "../mrkdwn.ts";
import { context, section } from "../run-block.ts";
import type { Block } from "../slack-api.ts";

/**
 * A proposal under the `approve` run policy, as Slack blocks: the command, and
 * an actions block with Run and Skip whose value names the room and the
 * approval, so a click can be checked against the conversation it came from.
 * Once decided, the actions block becomes a line saying who ran or skipped it.
 */

export const RUN_ACTION_ID = "duet_approval_run";
export const SKIP_ACTION_ID = "duet_approval_skip";
const BLOCK_PREFIX = "duet-approval-";

/** The button's value: Slack returns it as sent, and allows 2,000 characters (a room id is at most 200). */
export interface ApprovalRef {
  room: string;
  id: string;
}

export function approvalValue(ref: ApprovalRef): string {
  return JSON.stringify({ room: ref.room, id: ref.id });
}

/** The room and approval a clicked button names, or null for a value this bot never sent. */
export function readApprovalValue(value: string | undefined): ApprovalRef | null {
  try {
    const v = JSON.parse(value ?? "") as unknown;
    if (typeof v !== "object" || v === null) return null;
    const { room, id } = v as Record<string, unknown>;
    return typeof room === "string" && typeof id === "string" && room && id ? { room, id } : null;
  } catch {
    return null;
  }
}

const inline = (cmd: string) => `\`${escapeSlack(shortCommand(cmd)).replace(/`/g, "'")}\``;

/** The hint, then per command its line and its Run / Skip buttons. */
export function proposalBlocks(pending: PendingApproval[], room: string): Block[] {
  if (pending.length === 0) return [];
  const blocks: Block[] = [context(proposalHint(pending.length))];
  for (const p of pending) {
    const value = approvalValue({ room, id: p.id });
    blocks.push(section(`:hourglass_flowing_sand: ${inline(p.cmd)}`));
    blocks.push({
      type: "actions",
      block_id: `${BLOCK_PREFIX}${p.id}`,
      elements: [
        { type: "button", action_id: RUN_ACTION_ID, text: { type: "plain_text", text: "Run" }, style: "primary", value },
        { type: "button", action_id: SKIP_ACTION_ID, text: { type: "plain_text", text: "Skip" }, value },
      ],
    });
  }
  return blocks;
}

/** `blocks` with the decided approval's buttons replaced by who ran or skipped it; the rest as they were. */
export function withDecision(blocks: Block[], approval: DecidedApproval): Block[] {
  const line = describeDecision(approval, { person: (u) => `<@${u.replace(/[^A-Za-z0-9]/g, "")}>`, command: inline });
  const mark = approval.decision === "run" ? ":white_check_mark:" : ":next_track_button:";
  return blocks.map((b) => (b.block_id === `${BLOCK_PREFIX}${approval.id}` ? context(`${mark} ${line}`) : b));
}
