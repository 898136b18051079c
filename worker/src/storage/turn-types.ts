import type { Attachment, PendingApproval, ProposedFact, RunResult } from "@duet/shared";
import type { TurnUsage } from "../usage/usage-entries.ts";

export type { TurnUsage } from "../usage/usage-entries.ts";

/** A conversation turn (model, commands, history) or a direct command run (`/sandbox/exec`). */
export type TurnKind = "message" | "exec";

/** A turn the ledger accepted: where its row is, and what was asked. */
export interface LedgerTurn {
  /** The row holding it; rows are reused once their turn has aged out. */
  slot: number;
  /** Arrival order, never reused: it tells a turn from a later one in the same slot. */
  seq: number;
  kind: TurnKind;
  idemKey: string | null;
  userId: string | null;
  /** The asker's display name, when the bot sent one. */
  userName?: string | null;
  /** The person's text (redacted), or a direct run's command (redacted). */
  question: string;
  receivedAt: number;
  /** Set while commands run: the turn's progress as JSON (redacted; see turns/run-turn.ts). */
  progress: string | null;
  /** Where its answer goes (a DeliveryTarget as JSON), kept until a bot confirms it posted it; null when nobody waits for it there. */
  deliver?: string | null;
  /** The delivery that asked (a claimant, CLAIM_HEADER): a later request for the key from another one is refused. */
  claimant?: string | null;
}

/** What an answered turn stores for replay and history. */
export interface StoredAnswer {
  reply: string;
  explanation: string;
  runs: RunResult[];
  skipped?: string[];
  /** Someone stopped the turn: this is what was written and run before. */
  stopped?: boolean;
  /** Under `approve`: the commands proposed instead of run. */
  pending?: PendingApproval[];
  /** Workspace files the model attached (`<attach>`), found after the commands ran. */
  attachments?: Attachment[];
  /** The model asked for its change to be proposed as a pull request (`<pr>`), after commands that ran: the title, absent for Duet's own. */
  pr?: { title?: string };
  /** Facts the model proposed (`<remember>`), waiting for a person's click. */
  facts?: ProposedFact[];
  /** The model call's tokens, kept in the turn's own row (no row of its own); absent where no model was asked. */
  usage?: TurnUsage;
}


/** An answered turn as the model's context is built from it. */
export interface AnsweredTurn extends StoredAnswer {
  seq: number;
  userId: string | null;
  userName?: string | null;
  question: string;
  receivedAt: number;
  /** The model's own text, <run> tags included, redacted; null for a note (a decision, a direct run) and for turns stored before it was kept. */
  modelText: string | null;
  answeredAt: number;
  /** The schedule whose run asked it; absent for what a person asked. */
  scheduleId?: string | null;
}

/** A line of history recorded whole, with no model turn behind it: a decision on a proposed command, or a direct run. */
export interface HistoryNote {
  userId: string | null;
  /** The person's side, e.g. `Run: ls` (redacted). */
  question: string;
  /** Duet's side: what came of it (redacted). */
  reply: string;
  runs: RunResult[];
  at: number;
}
