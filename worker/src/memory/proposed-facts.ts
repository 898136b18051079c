import { DuetError, FACT_PROPOSALS_PER_ANSWER, pinFactRequestSchema, type ProposedFact } from "@duet/shared";
import { LazyTable } from "../storage/lazy-table.ts";

type Row = Record<string, SqlStorageValue>;

/** Proposals a room keeps waiting for a click; older ones are dropped (their buttons then say the offer is gone). */
export const PROPOSALS_KEPT = 50;

/**
 * Facts the model proposed (`<remember>`) and nobody has pinned or dismissed
 * yet. The model writes only a proposal: the fact is pinned when a person
 * clicks Pin, which takes it from here by id, so a fact the model copied from
 * command output (or anything it was talked into) never reaches the pinned
 * list without a click. One row per proposal, in a table made by the first.
 */
export class ProposedFacts {
  private readonly table: LazyTable;

  constructor(
    private readonly sql: SqlStorage,
    private readonly newId: () => string = () => crypto.randomUUID(),
  ) {
    this.table = new LazyTable(sql, "duet_fact_proposals", "id TEXT PRIMARY KEY, text TEXT NOT NULL, at INTEGER NOT NULL");
  }

  /** Keeps `facts` (already checked and redacted) as proposals: one row each, and one delete when past the bound. */
  offer(facts: readonly string[], at: number): ProposedFact[] {
    if (!facts.length) return [];
    this.table.make();
    const offered = facts.map((fact) => ({ id: this.newId(), fact }));
    for (const p of offered) this.sql.exec("INSERT INTO duet_fact_proposals (id, text, at) VALUES (?, ?, ?)", p.id, p.fact, at);
    this.sql.exec("DELETE FROM duet_fact_proposals WHERE rowid NOT IN (SELECT rowid FROM duet_fact_proposals ORDER BY rowid DESC LIMIT ?)", PROPOSALS_KEPT);
    return offered;
  }

  /** Takes proposal `id` away (pinned or dismissed); a second click, a reset room or a forged id finds nothing. */
  take(id: string): ProposedFact {
    const row = this.table.exists() ? this.sql.exec<Row>("DELETE FROM duet_fact_proposals WHERE id = ? RETURNING text", id).toArray()[0] : undefined;
    if (!row) throw new DuetError("not_found", "That proposed fact is no longer offered here: it was pinned or dismissed already, or the room was reset since");
    return { id, fact: String(row.text) };
  }

  wipe(): void {
    if (this.table.exists()) this.sql.exec("DELETE FROM duet_fact_proposals");
  }
}

/**
 * Which of the model's `<remember>` facts may be offered, and a note for the
 * rest: a fact is held to the rule a typed one is (length, no control
 * characters), and an answer offers at most FACT_PROPOSALS_PER_ANSWER.
 */
export function offerable(facts: readonly string[]): { facts: string[]; notes: string[] } {
  const ok: string[] = [];
  const notes: string[] = [];
  for (const raw of facts) {
    const checked = pinFactRequestSchema.shape.fact.safeParse(raw);
    if (!checked.success) {
      notes.push(`Duet proposed a fact it cannot offer to pin (${checked.error.issues[0]?.message ?? "not a fact"}).`);
    } else if (ok.length < FACT_PROPOSALS_PER_ANSWER) {
      ok.push(checked.data);
    } else {
      notes.push(`Duet proposed more than ${FACT_PROPOSALS_PER_ANSWER} facts in one answer; only the first ${FACT_PROPOSALS_PER_ANSWER} are offered to pin.`);
      break;
    }
  }
  return { facts: ok, notes };
}
