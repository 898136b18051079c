import type { RunResult } from "@duet/shared";
import { TurnStopped } from "../live/stop.ts";
import type { Outcome } from "../outcome.ts";
import type { StoredAnswer, TurnLedger } from "../storage/turn-ledger.ts";
import type { TurnDeps } from "./run-turn.ts";

/** What finished work gives back: a turn's answer with the history, the command a stop killed, a workspace save's note. */

/**
 * A message turn's answer with the room's history. Its JSON is written from
 * the answer's own and the history's kept JSON (the same text as serialising
 * the body), so the 50 messages are not serialised again for every answer.
 */
export function withHistory(stored: StoredAnswer, ledger: TurnLedger): Outcome {
  // The turn's usage is the room's bookkeeping (GET /usage), not part of the answer people get.
  const { usage: _usage, ...answer } = stored;
  const own = JSON.stringify(answer);
  return { status: 200, body: { ...answer, messages: ledger.history() }, bodyJson: `${own.slice(0, -1)},"messages":${ledger.historyJson()}}` };
}

/** The command a stop killed (the turn's last, ended with the stop's words), and who stopped it. */
export function killedBy(stop: AbortSignal, runs: RunResult[], redact: (text: string) => string): { index: number; by?: string } | undefined {
  const last = runs.length - 1;
  if (!(stop.reason instanceof TurnStopped) || last < 0 || runs[last].error !== redact(stop.reason.message)) return undefined;
  return { index: last, ...(stop.reason.by ? { by: stop.reason.by } : {}) };
}

/**
 * Saves the workspace after work that ran a command (where it must be saved
 * to outlive the sandbox); null, or the note that says the save failed.
 */
export async function saveAfter(deps: TurnDeps): Promise<string | null> {
  const note = (await deps.saveWorkspace?.(true)) ?? null;
  // Joins output that was redacted already; the container's words in it may quote anything.
  return note && deps.redact(note);
}
