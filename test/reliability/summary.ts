/** The file, in the directory the global setup provides, that every test file appends to. */
export const TALLY_FILE = "tally.jsonl";

/** One observation (tally.ts writes them). */
export type TallyEntry =
  | { kind: "turn"; id: string; event: "sent" }
  | { kind: "turn"; id: string; event: "observed"; replies: number };

/** The suite's totals, from the observations every test file wrote (see tally.ts). */
export interface Summary {
  turns: { sent: number; answeredOnce: number; duplicated: number };
  /** Turns sent that no test ever saw answered. */
  lost: string[];
}

export function summarise(entries: readonly TallyEntry[]): Summary {
  const sent = new Set<string>();
  const replies = new Map<string, number>();
  for (const e of entries) {
    if (e.event === "sent") sent.add(e.id);
    else replies.set(e.id, e.replies);
  }
  const counts = [...sent].map((id) => replies.get(id) ?? 0);
  return {
    turns: { sent: sent.size, answeredOnce: counts.filter((n) => n === 1).length, duplicated: counts.filter((n) => n > 1).length },
    lost: [...sent].filter((id) => (replies.get(id) ?? 0) === 0),
  };
}

export function parseTally(text: string): TallyEntry[] {
  return text
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as TallyEntry);
}

/** One line per total. */
export function summaryLines(s: Summary): string[] {
  const dup = s.turns.duplicated ? ` (${s.turns.duplicated} answered more than once)` : "";
  return [
    `turns sent and answered exactly once: ${s.turns.sent} sent, ${s.turns.answeredOnce} answered exactly once${dup}`,
    `messages lost: ${s.lost.length}`,
  ];
}
