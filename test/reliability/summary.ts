/** The file, in the directory the global setup provides, that every test file appends to. */
export const TALLY_FILE = "tally.jsonl";

/** One observation (tally.ts writes them). */
export type TallyEntry =
  | { kind: "fault"; id: string; event: "injected" | "survived" }
  | { kind: "bad-input"; id: string; event: "tried" | "rejected" }
  | { kind: "turn"; id: string; event: "sent" }
  | { kind: "turn"; id: string; event: "observed"; replies: number };

/** The suite's four totals, from the observations every test file wrote (see tally.ts). */
export interface Summary {
  faults: { injected: number; survived: number };
  badInputs: { tried: number; rejected: number };
  turns: { sent: number; answeredOnce: number; duplicated: number };
  /** Turns sent that no test ever saw answered. */
  lost: string[];
}

export function summarise(entries: readonly TallyEntry[]): Summary {
  const pairs = (kind: "fault" | "bad-input", start: string, end: string) => {
    const started = new Set(entries.filter((e) => e.kind === kind && e.event === start).map((e) => e.id));
    const ended = new Set(entries.filter((e) => e.kind === kind && e.event === end && started.has(e.id)).map((e) => e.id));
    return { started: started.size, ended: ended.size };
  };
  const faults = pairs("fault", "injected", "survived");
  const bad = pairs("bad-input", "tried", "rejected");

  const sent = new Set<string>();
  const replies = new Map<string, number>();
  for (const e of entries) {
    if (e.kind !== "turn") continue;
    if (e.event === "sent") sent.add(e.id);
    else replies.set(e.id, e.replies);
  }
  const counts = [...sent].map((id) => replies.get(id) ?? 0);
  return {
    faults: { injected: faults.started, survived: faults.ended },
    badInputs: { tried: bad.started, rejected: bad.ended },
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

/** One line each, as the issue asks. */
export function summaryLines(s: Summary): string[] {
  const dup = s.turns.duplicated ? ` (${s.turns.duplicated} answered more than once)` : "";
  return [
    `faults injected and survived: ${s.faults.injected} injected, ${s.faults.survived} survived`,
    `bad inputs tried and rejected cleanly: ${s.badInputs.tried} tried, ${s.badInputs.rejected} rejected cleanly`,
    `turns sent and answered exactly once: ${s.turns.sent} sent, ${s.turns.answeredOnce} answered exactly once${dup}`,
    `messages lost: ${s.lost.length}`,
  ];
}
