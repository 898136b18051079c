import type { ButtonJson, RowJson } from "../components-json.ts";
import { ANSWER_NOTES, describeDecision, type DecidedApproval, type PendingApproval, proposalHint, shortCommand } from "@duet/shared";

/**
 * A proposal under the `approve` run policy, as Discord shows it: a numbered
 * line per command and Run n / Skip n buttons whose custom id carries the
 * decision, the number and the approval id (the room is the channel the
 * click comes from). Once decided, that command's line says who ran or skipped
 * it and its buttons go; the others stay.
 */

export const APPROVAL_PREFIX = "duet-approval:";

/** Discord's limits: 5 buttons a row, 5 rows a message. */
const BUTTONS_PER_ROW = 5;
const MAX_ROWS = 5;

/** The rows and buttons every control here sends. */
export type { ButtonJson, RowJson };

export interface ApprovalButton {
  decision: "run" | "skip";
  /** The command's number in the message. */
  n: number;
  id: string;
}

export function approvalCustomId(b: ApprovalButton): string {
  return `${APPROVAL_PREFIX}${b.decision}:${b.n}:${b.id}`;
}

/** The button a custom id names, or null for one this bot never made. */
export function readApprovalCustomId(customId: string): ApprovalButton | null {
  const m = /^duet-approval:(run|skip):(\d{1,2}):([A-Za-z0-9-]{1,64})$/.exec(customId);
  return m ? { decision: m[1] as "run" | "skip", n: Number(m[2]), id: m[3] } : null;
}

const inline = (cmd: string) => `\`${shortCommand(cmd).replace(/`/g, "'")}\``;
const lineStart = (n: number) => `⏳ **${n}.** `;

/** The proposal's text and its button rows (each command's Run and Skip side by side; those past 10 get none). */
export function proposalPart(pending: PendingApproval[]): { content: string; components: RowJson[] } {
  const lines = pending.map((p, i) => `${lineStart(i + 1)}${inline(p.cmd)}`);
  const buttons = pending.flatMap((p, i): ButtonJson[] => [
    { type: 2, style: 3, label: `Run ${i + 1}`, custom_id: approvalCustomId({ decision: "run", n: i + 1, id: p.id }) },
    { type: 2, style: 2, label: `Skip ${i + 1}`, custom_id: approvalCustomId({ decision: "skip", n: i + 1, id: p.id }) },
  ]);
  // Pairs never split across rows: 2 commands a row (4 buttons), at most 5 rows.
  const perRow = BUTTONS_PER_ROW - (BUTTONS_PER_ROW % 2);
  const components: RowJson[] = [];
  for (let i = 0; i < buttons.length && components.length < MAX_ROWS; i += perRow) components.push({ type: 1, components: buttons.slice(i, i + perRow) });
  const withButtons = components.reduce((n, row) => n + row.components.length, 0) / 2;
  const rest = pending.length > withButtons ? [ANSWER_NOTES.noButtonsAfter(withButtons, BUTTONS_PER_ROW * MAX_ROWS)] : [];
  return { content: [proposalHint(pending.length), ...lines, ...rest].join("\n"), components };
}

/** The message's content and rows after `approval` (command `n`) was decided. */
export function withDecision(content: string, rows: RowJson[], n: number, approval: DecidedApproval): { content: string; components: RowJson[] } {
  return { content: decidedLines(content, n, approval), components: withoutDecided(rows, approval) };
}

/** Text with command `n`'s proposal line saying who ran or skipped it (other text as it was). */
export function decidedLines(content: string, n: number, approval: DecidedApproval): string {
  const mark = approval.decision === "run" ? "✅" : "⏭️";
  const said = describeDecision(approval, { person: (u) => `<@${u.replace(/\D/g, "")}>`, command: inline });
  return content
    .split("\n")
    .map((l) => (l.startsWith(lineStart(n)) ? `${mark} **${n}.** ${said}` : l))
    .join("\n");
}

/** Rows without the decided command's buttons; a row left empty goes. */
export function withoutDecided(rows: RowJson[], approval: DecidedApproval): RowJson[] {
  return rows
    .map((row) => ({ ...row, components: row.components.filter((b) => readApprovalCustomId(b.custom_id)?.id !== approval.id) }))
    .filter((row) => row.components.length > 0);
}
