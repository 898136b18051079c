import { DuetError, dollars, type Budget } from "@duet/shared";
import { nextUtcMidnight, utcDay, type UsageTotals } from "./usage-entries.ts";

/**
 * The daily budgets an operator set: in tokens (DUET_ROOM_DAILY_TOKENS,
 * DUET_USER_DAILY_TOKENS) and in US dollars of priced models
 * (DUET_ROOM_DAILY_USD, DUET_USER_DAILY_USD); absent: none.
 */
export interface DailyBudgets {
  room?: number;
  user?: number;
  roomUsd?: number;
  userUsd?: number;
}

/**
 * One person's use today as their budget counts it: in every room of their
 * workspace (`used` tokens and `costMicros`, from their usage object), and
 * where that is, in words.
 */
export interface PersonToday {
  used: number;
  costMicros: number;
  where: string;
}

/**
 * Why a turn may not start: the room, or this person, has used its tokens
 * or its dollars for today (UTC). Checked before a turn's model call, never
 * during one, so a turn already running finishes. A turn whose provider
 * reported no usage counts nothing toward a budget, and one on a model with
 * no price nothing toward a money budget: Duet cannot know what it cost.
 * `totals` is only added up when the room has a budget: it runs before every turn.
 */
export function overBudget(budgets: DailyBudgets, totals: () => UsageTotals, person: PersonToday | null, now = Date.now()): DuetError | null {
  const resets = `It resets at 00:00 UTC, ${resetsIn(now)}.`;
  if (budgets.room !== undefined) {
    const roomUsed = totals().tokensOn(utcDay(now));
    if (roomUsed >= budgets.room) {
      return refusal(`This room has used its daily budget of ${budgets.room} model tokens (DUET_ROOM_DAILY_TOKENS: ${roomUsed} used today). ${resets}`, now);
    }
  }
  if (budgets.roomUsd !== undefined) {
    const spent = totals().costOn(utcDay(now)) / 1e6;
    if (spent >= budgets.roomUsd) {
      return refusal(`This room has spent its daily budget of ${dollars(budgets.roomUsd)} on models (DUET_ROOM_DAILY_USD: ${dollars(spent)} today). ${resets}`, now);
    }
  }
  if (budgets.user !== undefined && person && person.used >= budgets.user) {
    return refusal(`You have used your daily budget of ${budgets.user} model tokens ${person.where} (DUET_USER_DAILY_TOKENS: ${person.used} used today). ${resets}`, now);
  }
  if (budgets.userUsd !== undefined && person && person.costMicros / 1e6 >= budgets.userUsd) {
    return refusal(`You have spent your daily budget of ${dollars(budgets.userUsd)} on models ${person.where} (DUET_USER_DAILY_USD: ${dollars(person.costMicros / 1e6)} today). ${resets}`, now);
  }
  return null;
}

/** The budgets as the usage route shows them: each limit, what is used today and what is left (the person's, when one is named); money in US dollars. */
export function budgetsView(budgets: DailyBudgets, totals: UsageTotals, person: PersonToday | null, now = Date.now()): { room?: Budget; user?: Budget; roomUsd?: Budget; userUsd?: Budget } {
  const today = utcDay(now);
  const view = (limit: number, used: number): Budget => ({ limit, used, left: Math.max(0, limit - used) });
  const personal = (limit: number, used: number): Budget => (person ? { ...view(limit, used), where: person.where } : { limit });
  return {
    ...(budgets.room !== undefined ? { room: view(budgets.room, totals.tokensOn(today)) } : {}),
    ...(budgets.user !== undefined ? { user: personal(budgets.user, person?.used ?? 0) } : {}),
    ...(budgets.roomUsd !== undefined ? { roomUsd: view(budgets.roomUsd, totals.costOn(today) / 1e6) } : {}),
    ...(budgets.userUsd !== undefined ? { userUsd: personal(budgets.userUsd, (person?.costMicros ?? 0) / 1e6) } : {}),
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
