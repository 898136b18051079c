import { describe, expect, it } from "vitest";
import { spread } from "./spread-files.ts";

const spec = (project: string, file: string, groupOrder: number, isolate = true) => ({
  file,
  project: { name: project, config: { isolate, sequence: { groupOrder } } },
});

describe("the order test files start in", () => {
  it("spreads the isolated projects of a group through one another, each in its own order, and keeps shared ones whole after them", () => {
    // As vitest's own order gives them: by group, then by project name, longest first within each.
    const sorted = [
      spec("chat", "c1", 0, false),
      spec("chat", "c2", 0, false),
      spec("node", "n1", 1),
      spec("node", "n2", 1),
      spec("node", "n3", 1),
      spec("node", "n4", 1),
      spec("reliability", "r1", 1),
      spec("stack", "s1", 1, false),
      spec("stack", "s2", 1, false),
      spec("unit", "u1", 1, false),
      spec("worker", "w1", 1),
      spec("worker", "w2", 1),
    ];
    expect(spread(sorted).map((s) => s.file)).toEqual(["c1", "c2", "n1", "w1", "n2", "r1", "n3", "w2", "n4", "s1", "s2", "u1"]);
  });

  it("starts the shared projects it is told to first, before the spread files", () => {
    const sorted = [
      spec("node", "n1", 1),
      spec("node", "n2", 1),
      spec("reliability", "r1", 1, false),
      spec("reliability", "r2", 1, false),
      spec("stack", "s1", 1, false),
      spec("worker", "w1", 1),
    ];
    expect(spread(sorted, ["reliability"]).map((s) => s.file)).toEqual(["r1", "r2", "n1", "w1", "n2", "s1"]);
  });

  it("never moves a file into another group", () => {
    const sorted = [spec("a", "a1", 0), spec("a", "a2", 0), spec("b", "b1", 1), spec("c", "c1", 2, false)];
    expect(spread(sorted).map((s) => s.file)).toEqual(["a1", "a2", "b1", "c1"]);
  });
});
