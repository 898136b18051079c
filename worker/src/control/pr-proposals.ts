import type { DeliveryTarget, PrProposal } from "@duet/shared";
import { LazyTable } from "../storage/lazy-table.ts";

type Row = Record<string, SqlStorageValue>;

/** The pull request a proposal became: where it is, and the commit last pushed to its branch. */
export interface OpenedPr {
  url: string;
  number: number;
  headSha: string;
  /** The proposal last pushed to it (opening it again pushes nothing). */
  proposalId: string;
  /** Who opened that proposal, and whether it went onto a pull request opened before: a later click on it is answered with both (absent in rows written before they were kept). */
  by?: string;
  updated?: boolean;
  /** The chat place it was asked for in (the latest conversation's), where GitHub's news of it goes; absent: none known. */
  target?: DeliveryTarget | null;
}

/** The room's proposal, and the pull request it became once someone opened it. */
export interface ProposalRecord {
  proposal: PrProposal;
  opened: OpenedPr | null;
  /** Someone skipped the proposal: it cannot be opened (the pull request it would update, if any, stays). */
  skipped?: boolean;
}

/**
 * The room's pull request proposal: one row, replaced by each new proposal,
 * in a table made by the first. A new proposal keeps the branch and the
 * pull request of the one before it (same repository and base), so more
 * changes update the same pull request.
 */
export class PrProposals {
  private cached: ProposalRecord | null | undefined;
  private readonly table: LazyTable;

  constructor(private readonly storage: DurableObjectStorage) {
    this.table = new LazyTable(storage.sql, "duet_pr", `id INTEGER PRIMARY KEY CHECK (id = 1), proposal TEXT NOT NULL, opened TEXT`);
  }

  current(): ProposalRecord | null {
    if (this.cached === undefined) {
      const row = this.table.exists() ? this.storage.sql.exec<Row>(`SELECT proposal, opened FROM duet_pr WHERE id = 1`).toArray()[0] : undefined;
      // A skipped proposal is kept with a mark in its JSON, so the table's shape stays as it was made.
      const stored = row ? (JSON.parse(String(row.proposal)) as PrProposal & { skipped?: boolean }) : null;
      const { skipped, ...proposal } = stored ?? { skipped: false };
      this.cached = row ? { proposal: proposal as PrProposal, opened: row.opened === null ? null : (JSON.parse(String(row.opened)) as OpenedPr), ...(skipped ? { skipped: true } : {}) } : null;
    }
    return this.cached;
  }

  set(record: ProposalRecord): void {
    this.table.make();
    this.storage.sql
      .exec(
        `INSERT INTO duet_pr (id, proposal, opened) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET proposal = excluded.proposal, opened = excluded.opened`,
        JSON.stringify(record.skipped ? { ...record.proposal, skipped: true } : record.proposal),
        record.opened ? JSON.stringify(record.opened) : null,
      )
      .toArray();
    this.cached = record;
  }

  wipe(): void {
    if (this.table.exists()) this.storage.sql.exec(`DELETE FROM duet_pr`).toArray();
    this.cached = null;
  }
}
