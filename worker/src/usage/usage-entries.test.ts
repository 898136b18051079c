import { describe, expect, it } from "vitest";
import { USAGE_DAYS, UsageTotals, utcDay } from "./usage-entries.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
const NOW = Date.UTC(2026, 11, 2, 0, 30);

describe("UsageTotals", () => {
  it("lists the last USAGE_DAYS UTC days up to now, today included, and drops older days and later ones", () => {
    const totals = new UsageTotals();
    const turn = { model: "m", inputTokens: 10, outputTokens: 5 };
    for (const daysAgo of [-1, 0, 1, USAGE_DAYS - 1, USAGE_DAYS, 40]) totals.addTurn(NOW - daysAgo * DAY_MS, `U${daysAgo}`, null, turn);
    expect(totals.list(NOW).map((e) => e.date)).toEqual([utcDay(NOW), "2026-12-01", "2026-11-26"]);
  });

  it("adds one person's turns of a day and model into one entry, and counts tokens per day", () => {
    const totals = new UsageTotals();
    totals.addTurn(NOW, "U1", "Ada", { model: "m", inputTokens: 10, outputTokens: 5 });
    totals.addTurn(NOW + 60_000, "U1", "Ada L.", { model: "m", inputTokens: null, outputTokens: null });
    totals.addTurn(NOW, "U2", null, { model: "m", inputTokens: 1, outputTokens: 1, costMicros: 2.5 });
    // U1's turn with figures had no price; U2's was priced.
    expect(totals.list(NOW)).toEqual([
      { date: "2026-12-02", userId: "U1", userName: "Ada L.", model: "m", inputTokens: 10, outputTokens: 5, turns: 2, unreported: 1, costMicros: 0, unpriced: 1 },
      { date: "2026-12-02", userId: "U2", userName: null, model: "m", inputTokens: 1, outputTokens: 1, turns: 1, unreported: 0, costMicros: 2.5, unpriced: 0 },
    ]);
    expect(totals.costOn("2026-12-02")).toBe(2.5);
    expect(totals.tokensOn("2026-12-02")).toBe(17);
    expect(totals.tokensOn("2026-12-02", "U2")).toBe(2);
  });
});
