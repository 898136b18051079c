import type { UsageResponse, UsageRow } from "@duet/shared";
import { budgetsView, type DailyBudgets, type PersonToday } from "./budgets.ts";
import { nextUtcMidnight, recentDays, type UsageEntry, UsageTotals } from "./usage-entries.ts";

/**
 * The usage route's answer from a room's entries and its thread rooms'
 * (added together): per day, newest first, one row per person and model.
 * Tokens are null where none of the turns had figures from the provider;
 * where only some had, the figures are those reported and `unreported` says
 * how many were not.
 */
export function usageView(entries: UsageEntry[], budgets: DailyBudgets, person: PersonToday | null, now = Date.now()): UsageResponse {
  const totals = new UsageTotals().addAll(entries);
  const listed = totals.list(now);
  const days = recentDays(now).map((date) => ({
    date,
    rows: listed
      .filter((e) => e.date === date)
      .sort((a, b) => b.inputTokens + b.outputTokens - (a.inputTokens + a.outputTokens) || b.turns - a.turns)
      .map(rowOf),
  }));
  return { days, budgets: budgetsView(budgets, totals, person, now), resetsAt: nextUtcMidnight(now) };
}

function rowOf(e: UsageEntry): UsageRow {
  const known = e.turns > e.unreported;
  return {
    userId: e.userId,
    ...(e.userName ? { userName: e.userName } : {}),
    model: e.model,
    inputTokens: known ? e.inputTokens : null,
    outputTokens: known ? e.outputTokens : null,
    turns: e.turns,
    ...(e.unreported ? { unreported: e.unreported } : {}),
    ...(e.turns > e.unreported + e.unpriced ? { costUsd: e.costMicros / 1e6 } : {}),
    ...(e.unpriced ? { unpriced: e.unpriced } : {}),
  };
}
