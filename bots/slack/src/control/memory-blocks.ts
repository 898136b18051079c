import { factDecidedLine, type ProposedFact, proposedFactsHint, type Reply, RESET_CHOICES, type ResetChoice, resetCancelled, resetFactsNote, resetQuestion, resetText } from "@duet/shared";
import { escapeSlack } from "../mrkdwn.ts";
import { type Rendered, renderNotice } from "../rendered.ts";
import { context, section } from "../run-block.ts";
import type { Block } from "../slack-api.ts";
import { NAMING } from "./render-control.ts";

/**
 * The room's memory as Slack buttons: a reset's question (keep the pinned
 * facts, wipe them, or cancel) and the facts the model proposed (Pin,
 * Dismiss). Each button's value names the room, so a click is checked
 * against the conversation it came from, and what it acts on: the reset's
 * `resetAt` or the proposal's id. A value this bot never sent reads as null.
 */

export const RESET_ACTION_IDS = { keep: "duet_reset_keep", wipe: "duet_reset_wipe", cancel: "duet_reset_cancel" } as const satisfies Record<ResetChoice, string>;
export const FACT_ACTION_IDS = { pin: "duet_fact_pin", dismiss: "duet_fact_dismiss" } as const;
const FACT_BLOCK_PREFIX = "duet-fact-";

const person = (u: string) => `<@${u.replace(/[^A-Za-z0-9]/g, "")}>`;
/** A fact as code: it can neither mention nor format. */
const quoted = (fact: string) => NAMING.command(fact);

/** A reset question's button value: the room and when it was last reset as the question was asked. */
export function readResetValue(value: string | undefined): { room: string; resetAt: number } | null {
  const v = readJson(value);
  return v && typeof v.room === "string" && v.room && Number.isSafeInteger(v.resetAt) && (v.resetAt as number) >= 0 ? { room: v.room, resetAt: v.resetAt as number } : null;
}

/** A proposal's button value: the room and the proposal's id. */
export function readFactValue(value: string | undefined): { room: string; id: string } | null {
  const v = readJson(value);
  return v && typeof v.room === "string" && v.room && typeof v.id === "string" && v.id ? { room: v.room, id: v.id } : null;
}

function readJson(value: string | undefined): Record<string, unknown> | null {
  try {
    const v = JSON.parse(value ?? "") as unknown;
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The reset's question and its three buttons. */
export function renderResetAsk(reply: Extract<Reply, { kind: "reset-ask" }>, room: string | undefined): Rendered {
  const text = `:broom: ${resetQuestion(person(reply.user), reply)}`;
  if (!room) return renderNotice(text);
  const value = JSON.stringify({ room, resetAt: reply.resetAt });
  const button = (choice: ResetChoice, style?: "primary" | "danger") => ({
    type: "button" as const,
    action_id: RESET_ACTION_IDS[choice],
    text: { type: "plain_text" as const, text: RESET_CHOICES[choice] },
    value,
    ...(style ? { style } : {}),
  });
  return { text, blocks: [section(text), { type: "actions", block_id: "duet-reset", elements: [button("keep", "primary"), button("wipe", "danger"), button("cancel")] }], uploads: [] };
}

/** A reset done (with what became of the facts, when asked) or cancelled. */
export function renderResetDone(reply: Extract<Reply, { kind: "reset" | "reset-cancelled" }>): Rendered {
  if (reply.kind === "reset-cancelled") return renderNotice(`:broom: ${resetCancelled(person(reply.user))}`);
  const done = resetText(person(reply.user), reply.errors.map(escapeSlack), "`/duet reset`");
  return renderNotice(`:broom: ${reply.facts ? `${done} ${resetFactsNote(reply.facts)}` : done}`);
}

/** Under an answer: the facts the model proposed, each with Pin and Dismiss. */
export function proposedFactBlocks(facts: ProposedFact[], room: string): Block[] {
  if (!facts.length) return [];
  const blocks: Block[] = [context(proposedFactsHint(facts.length))];
  for (const f of facts) {
    const value = JSON.stringify({ room, id: f.id });
    blocks.push(section(`:pushpin: ${quoted(f.fact)}`));
    blocks.push({
      type: "actions",
      block_id: `${FACT_BLOCK_PREFIX}${f.id}`,
      elements: [
        { type: "button", action_id: FACT_ACTION_IDS.pin, text: { type: "plain_text", text: "Pin" }, style: "primary", value },
        { type: "button", action_id: FACT_ACTION_IDS.dismiss, text: { type: "plain_text", text: "Dismiss" }, value },
      ],
    });
  }
  return blocks;
}

/** The line a decided proposal shows. */
export function factDecidedText(reply: Extract<Reply, { kind: "fact-decided" }>): string {
  return `${reply.decision === "pin" ? ":pushpin:" : ":wastebasket:"} ${factDecidedLine(reply, person(reply.user), quoted(reply.fact))}`;
}

/** `blocks` with the decided proposal's buttons replaced by who pinned or dismissed it; the rest as they were. */
export function withFactDecision(blocks: Block[], reply: Extract<Reply, { kind: "fact-decided" }>): Block[] {
  return blocks.map((b) => (b.block_id === `${FACT_BLOCK_PREFIX}${reply.id}` ? context(factDecidedText(reply)) : b));
}
