import { describe, expect, it } from "vitest";
import { type GroupsRun, groupsRuns, groupsRunsLine } from "./groups-runs.ts";

const run = (groups: string[], date: string, note?: string): GroupsRun => ({ groups, date, seconds: 10, load: { start: "1.00", end: "2.00" }, ...(note ? { note } : {}) });

describe("the runs whose figures RESULTS.md merges", () => {
  it("keeps each earlier run for the groups not measured again, and drops one with none left", () => {
    const earlier = [run(["live"], "d1"), run(["slack", "discord", "at-once"], "d2"), run(["built"], "d3")];
    const now = run(["built", "slack"], "d4");
    expect(groupsRuns(earlier, ["built", "slack"], now)).toEqual([run(["live"], "d1"), run(["discord", "at-once"], "d2"), now]);
  });

  it("names every run with its date, time and load, then where the rest come from", () => {
    const line = groupsRunsLine([run(["live"], "d1", "a quiet run"), run(["built"], "d2")], "2 cores", "d0");
    expect(line).toBe(
      "`pnpm bench live` d1 (10 s, load average 1.00 → 2.00; a quiet run), `pnpm bench built` d2 (10 s, load average 1.00 → 2.00), each on 2 cores, in separate runs merged here; the other figures are kept from the run of d0.",
    );
    expect(groupsRunsLine([run(["built"], "d2")], "2 cores", undefined)).toContain("; no other figures were kept.");
  });
});
