import { describe, expect, it } from "vitest";
import { budgetsView, overBudget } from "./budgets.ts";
import { UsageTotals } from "./usage-entries.ts";

/** 22:30 UTC: the budgets reset in 1 h 30 min. */
const NOW = Date.UTC(2026, 11, 2, 22, 30);
const YESTERDAY = NOW - 24 * 60 * 60 * 1000;

/** A room whose turns today used `today` tokens, and 10 000 yesterday. */
function room(today: number): UsageTotals {
  const totals = new UsageTotals();
  totals.addTurn(YESTERDAY, "U1", null, { model: "m", inputTokens: 10_000, outputTokens: 0 });
  if (today) totals.addTurn(NOW - 60_000, "U1", null, { model: "m", inputTokens: today - 1, outputTokens: 1 });
  return totals;
}

const across = (used: number, costMicros = 0) => ({ used, costMicros, where: "across this workspace's rooms" });

/** A room whose priced turns today cost `usd`, and $5 yesterday. */
function spent(usd: number): UsageTotals {
  const totals = new UsageTotals();
  totals.addTurn(YESTERDAY, "U1", null, { model: "m", inputTokens: 10, outputTokens: 0, costMicros: 5e6 });
  if (usd) totals.addTurn(NOW - 60_000, "U1", null, { model: "m", inputTokens: 10, outputTokens: 0, costMicros: usd * 1e6 });
  // A turn on a model with no price costs nothing toward a money budget.
  totals.addTurn(NOW - 30_000, "U1", null, { model: "free", inputTokens: 10 ** 6, outputTokens: 0 });
  return totals;
}

describe("daily budgets", () => {
  it("lets a turn start while the room and the person are under their budgets, and with no budgets at all", () => {
    expect(overBudget({ room: 600, user: 300 }, () => room(599), across(299), NOW)).toBeNull();
    expect(overBudget({}, () => room(10 ** 9), across(10 ** 9), NOW)).toBeNull();
    // Yesterday's tokens count for nothing today.
    expect(overBudget({ room: 600 }, () => room(0), null, NOW)).toBeNull();
  });

  it("refuses a turn once the room used its budget today, saying the budget, the use and when it resets", () => {
    const refused = overBudget({ room: 600 }, () => room(600), null, NOW);
    expect(refused).toMatchObject({ code: "over_budget", retryAfterMs: 90 * 60_000 });
    expect(refused?.message).toBe("This room has used its daily budget of 600 model tokens (DUET_ROOM_DAILY_TOKENS: 600 used today). It resets at 00:00 UTC, in 1 h 30 min.");
  });

  it("refuses a person past their budget where it is counted; no person named, no person's budget", () => {
    const refused = overBudget({ user: 300 }, () => room(0), across(300), NOW);
    expect(refused?.message).toBe("You have used your daily budget of 300 model tokens across this workspace's rooms (DUET_USER_DAILY_TOKENS: 300 used today). It resets at 00:00 UTC, in 1 h 30 min.");
    expect(overBudget({ user: 300 }, () => room(0), null, NOW)).toBeNull();
  });

  it("adds up the room's tokens only when the room has a budget (it runs before every turn)", () => {
    let added = 0;
    const totals = () => (added++, room(0));
    overBudget({ user: 300 }, totals, across(0), NOW);
    expect(added).toBe(0);
    overBudget({ room: 600 }, totals, null, NOW);
    expect(added).toBe(1);
  });

  it("shows each budget with what is used and left, never below zero, and a person's limit alone when no person is named", () => {
    expect(budgetsView({ room: 600, user: 300 }, room(700), across(120), NOW)).toEqual({
      room: { limit: 600, used: 700, left: 0 },
      user: { limit: 300, used: 120, left: 180, where: "across this workspace's rooms" },
    });
    expect(budgetsView({ user: 300 }, room(0), null, NOW)).toEqual({ user: { limit: 300 } });
    expect(budgetsView({}, room(0), null, NOW)).toEqual({});
  });

  it("refuses a turn once the room, or the person, spent its money budget today; unpriced turns and yesterday count nothing", () => {
    expect(overBudget({ roomUsd: 2 }, () => spent(1.99), null, NOW)).toBeNull();
    const room = overBudget({ roomUsd: 2 }, () => spent(2), null, NOW);
    expect(room).toMatchObject({ code: "over_budget", retryAfterMs: 90 * 60_000 });
    expect(room?.message).toBe("This room has spent its daily budget of $2.00 on models (DUET_ROOM_DAILY_USD: $2.00 today). It resets at 00:00 UTC, in 1 h 30 min.");
    expect(overBudget({ userUsd: 0.5 }, () => spent(0), across(0, 499_999), NOW)).toBeNull();
    expect(overBudget({ userUsd: 0.5 }, () => spent(0), across(0, 500_000), NOW)?.message).toBe(
      "You have spent your daily budget of $0.50 on models across this workspace's rooms (DUET_USER_DAILY_USD: $0.50 today). It resets at 00:00 UTC, in 1 h 30 min.",
    );
  });

  it("shows the money budgets in dollars beside the token ones", () => {
    expect(budgetsView({ roomUsd: 2, userUsd: 0.5 }, spent(0.25), across(0, 100_000), NOW)).toEqual({
      roomUsd: { limit: 2, used: 0.25, left: 1.75 },
      userUsd: { limit: 0.5, used: 0.1, left: 0.4, where: "across this workspace's rooms" },
    });
  });
});
