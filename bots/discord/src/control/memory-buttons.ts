import { factDecidedLine, type ProposedFact, proposedFactsHint, type Reply, RESET_CHOICES, type ResetChoice, resetCancelled, resetFactsNote, resetQuestion, resetText } from "@duet/shared";
import type { ButtonJson, RowJson } from "./approval-buttons.ts";
import { NAMING } from "./render-control.ts";

/**
 * The room's memory as Discord buttons: a reset's question (keep the pinned
 * facts, wipe them, cancel) and the facts the model proposed (Pin n, Dismiss n).
 * Custom ids carry the choice and what it acts on (the reset's `resetAt`, the
 * proposal's id); the room is the channel the click comes from.
 */

export const RESET_PREFIX = "duet-reset:";
export const FACT_PREFIX = "duet-fact:";

const person = (u: string) => `<@${u.replace(/\D/g, "")}>`;
const quoted = (fact: string) => NAMING.command(fact);

export function readResetCustomId(customId: string): { choice: ResetChoice; resetAt: number } | null {
  const m = /^duet-reset:(keep|wipe|cancel):(\d{1,15})$/.exec(customId);
  return m ? { choice: m[1] as ResetChoice, resetAt: Number(m[2]) } : null;
}

export function readFactCustomId(customId: string): { decision: "pin" | "dismiss"; n: number; id: string } | null {
  const m = /^duet-fact:(pin|dismiss):(\d):([A-Za-z0-9-]{1,64})$/.exec(customId);
  return m ? { decision: m[1] as "pin" | "dismiss", n: Number(m[2]), id: m[3] } : null;
}

/** The reset's question and its three buttons. */
export function resetAskPart(reply: Extract<Reply, { kind: "reset-ask" }>): { content: string; components: RowJson[] } {
  const button = (choice: ResetChoice, style: number): ButtonJson => ({ type: 2, style, label: RESET_CHOICES[choice], custom_id: `${RESET_PREFIX}${choice}:${reply.resetAt}` });
  // Styles: 1 primary, 4 danger, 2 secondary.
  return { content: `🧹 ${resetQuestion(person(reply.user), reply)}`, components: [{ type: 1, components: [button("keep", 1), button("wipe", 4), button("cancel", 2)] }] };
}

/** A reset done (with what became of the facts, when asked) or cancelled. */
export function resetDoneText(reply: Extract<Reply, { kind: "reset" | "reset-cancelled" }>): string {
  if (reply.kind === "reset-cancelled") return `🧹 ${resetCancelled(person(reply.user))}`;
  const done = resetText(person(reply.user), reply.errors, "`/duet reset`");
  return `🧹 ${reply.facts ? `${done} ${resetFactsNote(reply.facts)}` : done}`;
}

const lineStart = (n: number) => `📌 **${n}.** `;

/** The facts the model proposed, numbered, with a row of Pin n / Dismiss n each (at most 3, so 3 rows). */
export function proposedFactsPart(facts: ProposedFact[]): { content: string; components: RowJson[] } {
  const content = [proposedFactsHint(facts.length), ...facts.map((f, i) => `${lineStart(i + 1)}${quoted(f.fact)}`)].join("\n");
  const components: RowJson[] = facts.map((f, i) => ({
    type: 1,
    components: [
      { type: 2, style: 1, label: `Pin ${i + 1}`, custom_id: `${FACT_PREFIX}pin:${i + 1}:${f.id}` },
      { type: 2, style: 2, label: `Dismiss ${i + 1}`, custom_id: `${FACT_PREFIX}dismiss:${i + 1}:${f.id}` },
    ],
  }));
  return { content, components };
}

/** The line a decided proposal shows. */
export function factDecidedText(reply: Extract<Reply, { kind: "fact-decided" }>): string {
  return factDecidedLine(reply, person(reply.user), quoted(reply.fact));
}

/** The proposal message after fact `n` was pinned or dismissed: its line says so, its buttons go. */
export function withFactDecision(content: string, rows: RowJson[], n: number, reply: Extract<Reply, { kind: "fact-decided" }>): { content: string; components: RowJson[] } {
  const mark = reply.decision === "pin" ? "✅" : "🗑️";
  const lines = content.split("\n").map((l) => (l.startsWith(lineStart(n)) ? `${mark} **${n}.** ${factDecidedText(reply)}` : l));
  const components = rows.filter((row) => !row.components.some((b) => readFactCustomId(b.custom_id)?.id === reply.id));
  return { content: lines.join("\n"), components };
}
