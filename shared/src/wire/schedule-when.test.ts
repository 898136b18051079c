import { describe, expect, it } from "vitest";
import { DuetError } from "./errors.ts";
import { nextRuns, parseSchedule, parseWhen, shortestGapS } from "./schedule-when.ts";

const MIN = 900;
const NOW = Date.parse("2026-03-27T12:00:00Z");

/** The message a person sees for `when`, or null when it is accepted. */
function refusal(when: string, now = NOW): string | null {
  try {
    parseSchedule(when, MIN, now);
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(DuetError);
    expect((err as DuetError).status).toBe(400);
    return (err as DuetError).message;
  }
}

const iso = (ms: number[]) => ms.map((t) => new Date(t).toISOString());

describe("parseWhen", () => {
  it("reads intervals in short and long units", () => {
    expect(parseWhen("every 30m")).toEqual({ kind: "interval", everyS: 1800 });
    expect(parseWhen("every 2h")).toEqual({ kind: "interval", everyS: 7200 });
    expect(parseWhen("Every 2 hours")).toEqual({ kind: "interval", everyS: 7200 });
    expect(parseWhen("every 1d")).toEqual({ kind: "interval", everyS: 86_400 });
  });

  it("reads day and time forms as cron lines in their zone (UTC when none is named)", () => {
    expect(parseWhen("every day 09:00 Europe/Berlin")).toEqual({ kind: "cron", cron: "0 9 * * *", timeZone: "Europe/Berlin" });
    expect(parseWhen("every weekday 9:00 Europe/Berlin")).toEqual({ kind: "cron", cron: "0 9 * * 1-5", timeZone: "Europe/Berlin" });
    expect(parseWhen("every monday 08:30 UTC")).toEqual({ kind: "cron", cron: "30 8 * * 1", timeZone: "UTC" });
    expect(parseWhen("every friday 17:45")).toEqual({ kind: "cron", cron: "45 17 * * 5", timeZone: "UTC" });
  });

  it("reads a 5-field cron line with or without a zone, names included", () => {
    expect(parseWhen("0 9 * * 1-5")).toEqual({ kind: "cron", cron: "0 9 * * 1-5", timeZone: "UTC" });
    expect(parseWhen("0 9 * * MON-FRI America/New_York")).toEqual({ kind: "cron", cron: "0 9 * * MON-FRI", timeZone: "America/New_York" });
    expect(parseWhen("0 9 * * * UTC")).toEqual({ kind: "cron", cron: "0 9 * * *", timeZone: "UTC" });
  });
});

describe("next runs", () => {
  it("runs a weekday 09:00 Berlin schedule at 08:00 UTC before the spring change and 07:00 UTC after it", () => {
    // 2026-03-29 is the Sunday Berlin moves from UTC+1 to UTC+2.
    const spec = parseWhen("every weekday 09:00 Europe/Berlin");
    expect(iso(nextRuns(spec, NOW, 3))).toEqual(["2026-03-30T07:00:00.000Z", "2026-03-31T07:00:00.000Z", "2026-04-01T07:00:00.000Z"]);
    expect(iso(nextRuns(spec, Date.parse("2026-03-26T12:00:00Z"), 2))).toEqual(["2026-03-27T08:00:00.000Z", "2026-03-30T07:00:00.000Z"]);
  });

  it("runs a daily 02:30 Berlin schedule once on the night the clocks go back, and still the next day", () => {
    // 2026-10-25: 02:30 happens twice in Berlin; 2026-03-29: it does not happen at all.
    const back = iso(nextRuns(parseWhen("every day 02:30 Europe/Berlin"), Date.parse("2026-10-24T12:00:00Z"), 3));
    expect(back).toHaveLength(3);
    expect(new Set(back.map((t) => t.slice(0, 10))).size).toBe(3);
    const forward = nextRuns(parseWhen("every day 02:30 Europe/Berlin"), Date.parse("2026-03-28T12:00:00Z"), 2);
    expect(forward[1] - forward[0]).toBeGreaterThan(20 * 3600_000);
  });

  it("counts intervals in whole steps from when the schedule was made, whatever time it is read", () => {
    const spec = parseWhen("every 30m");
    const made = Date.parse("2026-03-27T10:05:00Z");
    expect(iso(nextRuns(spec, made, 2, made))).toEqual(["2026-03-27T10:35:00.000Z", "2026-03-27T11:05:00.000Z"]);
    // Read late (the room slept through two runs): the next run is the next whole step, not a burst of missed ones.
    expect(iso(nextRuns(spec, Date.parse("2026-03-27T11:20:00Z"), 1, made))).toEqual(["2026-03-27T11:35:00.000Z"]);
  });

  it("measures a cron line's shortest gap over its next runs, not its first two", () => {
    expect(shortestGapS(parseWhen("0 9 * * 1-5"), NOW)).toBe(86_400);
    expect(shortestGapS(parseWhen("0,5 9 * * *"), NOW)).toBe(300);
  });
});

describe("bad input", () => {
  it("refuses empty and unreadable text with examples", () => {
    expect(refusal("")).toMatch(/When should it run\?.*every 30m/);
    expect(refusal("   ")).toMatch(/When should it run\?/);
    expect(refusal("tomorrow-ish")).toMatch(/can't read `tomorrow-ish`.*every 30m/);
    expect(refusal("every")).toMatch(/needs how often/);
    expect(refusal("every blue moon")).toMatch(/can't read/);
    expect(refusal("every 5 fortnights")).toMatch(/Unknown unit `fortnights`/);
    expect(refusal("every day")).toMatch(/needs a time of day/);
    expect(refusal("every day 25:00")).toMatch(/not a time of day/);
    expect(refusal("every day 09:00 UTC extra")).toMatch(/Unexpected `extra`/);
  });

  it("refuses anything more frequent than the minimum interval, saying both", () => {
    expect(refusal("every 1s")).toBe("That runs every 1 second at its most frequent; schedules here run at most every 15 minutes.");
    expect(refusal("every 5m")).toMatch(/every 5 minutes .* every 15 minutes/);
    expect(refusal("*/5 * * * *")).toMatch(/every 5 minutes/);
    expect(refusal("0,1 9 * * *")).toMatch(/every 1 minute /);
    expect(refusal("every 15m")).toBeNull();
    expect(refusal("every 0m")).toMatch(/more than zero/);
  });

  it("refuses an unknown time zone by name", () => {
    expect(refusal("every day 09:00 Mars/Olympus")).toMatch(/Unknown time zone `Mars\/Olympus`/);
    expect(refusal("0 9 * * * Europe/Atlantis")).toMatch(/Unknown time zone `Europe\/Atlantis`/);
  });

  it("refuses a cron line with six fields, or a bad field", () => {
    expect(refusal("0 0 9 * * 1-5")).toMatch(/A cron line has 5 fields .* this one has 6/);
    expect(refusal("0 0 9 * * MON")).toMatch(/this one has 6/);
    expect(refusal("0 9 * *")).toMatch(/this one has 4/);
    expect(refusal("0 99 * * *")).toMatch(/not a cron line Duet can read/);
  });

  it("refuses huge input: a long text, a huge count, a date that never comes", () => {
    expect(refusal(`every ${"9".repeat(500)}m`)).toMatch(/at most 120/);
    expect(refusal(`every ${"9".repeat(40)}m`)).toMatch(/too long: .* once a year/);
    expect(refusal("every 400d")).toMatch(/once a year/);
    expect(refusal("0 0 30 2 *")).toMatch(/never runs/);
  });
});
