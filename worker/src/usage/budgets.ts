import { DuetError, type Budget } from "@duet/shared";
import { nextUtcMidnight, utcDay, type UsageTotals } from "./usage-entries.ts";

/** The daily budgets an operator set (DUET_ROOM_DAILY_TOKENS, DUET_USER_DAILY_TOKENS); absent: none. */
export interface DailyBudgets {
  room?: number;
  user?: number;
}

/**
 * One person's use today as their budget counts it: in every room of their
 * workspace (`used`, from their usage object), and where that is, in words.
 */
export interface PersonToday {
  used: number;
  where: string;
}

/**
 * Why a turn may not start: the room, or this person, has used its tokens
 * for today (UTC). Checked before a turn's model call, never during one, so a
 * turn already running finishes. A turn whose provider reported no usage
 * counts nothing toward a budget: Duet cannot know what it cost. `totals` is
 * only added up when the room has a budget: it runs before every turn.
 */
export function overBudget(budgets: DailyBudgets, totals: () => UsageTotals, person: PersonToday | null, now = Date.now()): DuetError | null {
  if (budgets.room !== undefined) {
    const roomUsed = totals().tokensOn(utcDay(now));
    if (roomUsed >= budgets.room) {
      return refusal(`This room has used its daily budget of ${budgets.room} model tokens (DUET_ROOM_DAILY_TOKENS: ${roomUsed} used today). It resets at 00:00 UTC, ${resetsIn(now)}.`, now);
    }
  }
  if (budgets.user !== undefined && person && person.used >= budgets.user) {
    return refusal(
      `You have used your daily budget of ${budgets.user} model tokens ${person.where} (DUET_USER_DAILY_TOKENS: ${person.used} used today). It resets at 00:00 UTC, ${resetsIn(now)}.`,
      now,
    );
  }
  return null;
}

/** The budgets as the usage route shows them: each limit, what is used today and what is left (the person's, when one is named). */
export function budgetsView(budgets: DailyBudgets, totals: UsageTotals, person: PersonToday | null, now = Date.now()): { room?: Budget; user?: Budget } {
  const today = utcDay(now);
  const view = (limit: number, used: number): Budget => ({ limit, used, left: Math.max(0, limit - used) });
  return {
    ...(budgets.room !== undefined ? { room: view(budgets.room, totals.tokensOn(today)) } : {}),
    ...(budgets.user !== undefined ? { user: person ? { ...view(budgets.user, person.used), where: person.where } : { limit: budgets.user } } : {}),
  };
}

function refusal(message: string, now: number): DuetError {
  return new DuetError("over_budget", message, { retryAfterMs: nextUtcMidnight(now) - now });
}

/** "in 5 h 12 min": how long until the next 00:00 UTC. */
function resetsIn(now: number): string {
  const minutes = Math.ceil((nextUtcMidnight(now) - now) / 60_000);
  const h = Math.floor(minutes / 60);
  return `in ${h ? `${h} h ` : ""}${minutes % 60} min`;
}
