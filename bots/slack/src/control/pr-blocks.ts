import { PR_WORDS, prDecidedLine, prDiffBlock, prHint, prProposalHead, prProposedNotice, type PrOpened, type PrProposal } from "@duet/shared";
import { escapeSlack } from "../mrkdwn.ts";
import { context, SECTION_MAX_CHARS, section } from "../run-block.ts";
import type { Rendered } from "../rendered.ts";
import type { Block } from "../slack-api.ts";
import { NAMING } from "./render-control.ts";
import { approvalValue, readApprovalValue } from "./approval-blocks.ts";

/**
 * A pull request proposal as Slack blocks: who proposed what and where to,
 * the diff's first lines in a code block, and an actions block with Open and
 * Skip whose value names the room and the proposal (as Run and Skip do), so
 * a click is checked against the conversation it came from. Once decided,
 * the actions block becomes a line saying what became of it.
 */

export const PR_OPEN_ACTION_ID = "duet_pr_open";
export const PR_SKIP_ACTION_ID = "duet_pr_skip";
const BLOCK_PREFIX = "duet-pr-";

/** A clicked button's room and proposal, as approval buttons carry theirs. */
export const readPrValue = readApprovalValue;

export function prProposalBlocks(p: PrProposal, room: string): Rendered {
  const head = `:twisted_rightwards_arrows: ${prProposalHead(p, NAMING)}`;
  // The diff is the model's data: fenced and escaped, cut at a line end to fit the section.
  const diff = prDiffBlock(p.diffHead, SECTION_MAX_CHARS, escapeSlack);
  const value = approvalValue({ room, id: p.id });
  const blocks: Block[] = [
    section(head),
    section(diff),
    context(prHint(p)),
    {
      type: "actions",
      block_id: `${BLOCK_PREFIX}${p.id}`,
      elements: [
        { type: "button", action_id: PR_OPEN_ACTION_ID, text: { type: "plain_text", text: "Open" }, style: "primary", value },
        { type: "button", action_id: PR_SKIP_ACTION_ID, text: { type: "plain_text", text: "Skip" }, value },
      ],
    },
  ];
  return { text: prProposedNotice(p, escapeSlack(p.title).slice(0, 120)), blocks, uploads: [] };
}

/** `blocks` with the proposal's buttons (and their hint) replaced by what became of it: once opened, the pull request's link, as a section of its own. */
export function withPrDecision(blocks: Block[], proposalId: string, decision: { opened: PrOpened; by: string } | { skippedBy: string }): Block[] {
  const mark = "opened" in decision ? ":white_check_mark:" : ":next_track_button:";
  const text = `${mark} ${prDecidedLine(decision, NAMING)}`;
  const line = "opened" in decision ? section(text) : context(text);
  return blocks.filter((b) => !(b.type === "context" && [PR_WORDS.hint, PR_WORDS.branchHint].some((h) => JSON.stringify(b).includes(h)))).map((b) => (b.block_id === `${BLOCK_PREFIX}${proposalId}` ? line : b));
}
