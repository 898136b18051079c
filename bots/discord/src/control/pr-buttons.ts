import { PR_PROPOSAL_ID_PATTERN, PR_WORDS, prDecidedLine, prDiffBlock, prHint, prProposalHead, type PrOpened, type PrProposal } from "@duet/shared";
import type { RowJson } from "./approval-buttons.ts";
import { NAMING } from "./render-control.ts";

/**
 * A pull request proposal as Discord shows it: who proposed what and where
 * to, the diff's first lines in a code block, and Open / Skip buttons whose
 * custom id carries the decision and the proposal id (the room is the
 * channel the click comes from, as for Run and Skip). Once decided, the
 * buttons go and a line says what became of it.
 */

export const PR_PREFIX = "duet-pr:";

/** Discord's limit per message. */
const MESSAGE_MAX_CHARS = 2_000;

export interface PrButton {
  decision: "open" | "skip";
  id: string;
}

export function prCustomId(b: PrButton): string {
  return `${PR_PREFIX}${b.decision}:${b.id}`;
}

/** The button a custom id names, or null for one this bot never made. */
export function readPrCustomId(customId: string): PrButton | null {
  const m = /^duet-pr:(open|skip):([^:]*)$/.exec(customId);
  return m && PR_PROPOSAL_ID_PATTERN.test(m[2]) ? { decision: m[1] as "open" | "skip", id: m[2] } : null;
}

export function prProposalPart(p: PrProposal): { content: string; components: RowJson[] } {
  const head = `🔀 ${prProposalHead(p, NAMING)}`;
  const hint = `*${prHint(p)}*`;
  // The diff is the model's data: fenced, cut at a line end so the whole message fits Discord's 2,000 characters.
  const diff = prDiffBlock(p.diffHead, MESSAGE_MAX_CHARS - head.length - hint.length - 4);
  const content = `${head}\n${diff}\n${hint}`.slice(0, MESSAGE_MAX_CHARS);
  const components: RowJson[] = [
    {
      type: 1,
      components: [
        { type: 2, style: 3, label: "Open", custom_id: prCustomId({ decision: "open", id: p.id }) },
        { type: 2, style: 2, label: "Skip", custom_id: prCustomId({ decision: "skip", id: p.id }) },
      ],
    },
  ];
  return { content, components };
}

/**
 * The proposal's content once decided: its hint gives way to what became of
 * it (once opened, the pull request's link), its buttons go. The line is
 * kept whole: when the diff leaves it no room, the diff goes (the pull
 * request shows it).
 */
export function withPrDecision(content: string, decision: { opened: PrOpened; by: string } | { skippedBy: string }): { content: string; components: RowJson[] } {
  const mark = "opened" in decision ? "✅" : "⏭️";
  const line = `${mark} ${prDecidedLine(decision, NAMING)}`;
  const hints = [PR_WORDS.hint, PR_WORDS.branchHint].map((h) => `*${h}*`);
  const kept = content.split("\n").filter((l) => !hints.includes(l));
  const whole = [...kept, line].join("\n");
  if (whole.length <= MESSAGE_MAX_CHARS) return { content: whole, components: [] };
  const fence = kept.findIndex((l) => l.startsWith("```"));
  const head = (fence < 0 ? kept : kept.slice(0, fence)).join("\n").slice(0, Math.max(0, MESSAGE_MAX_CHARS - line.length - 1));
  return { content: `${head}\n${line}`.slice(-MESSAGE_MAX_CHARS), components: [] };
}
