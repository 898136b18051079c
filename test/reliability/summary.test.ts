import { describe, expect, it } from "vitest";
import { parseTally, summarise, summaryLines, type TallyEntry } from "./summary.ts";

/** The arithmetic behind the four lines the suite prints, on hand-made tallies. */

const lines = (entries: TallyEntry[]) => entries.map((e) => JSON.stringify(e)).join("\n");

describe("the reliability tally", () => {
  it("counts a fault or bad input only once its test confirmed it, and only the ones injected", () => {
    const s = summarise([
      { kind: "fault", id: "a", event: "injected" },
      { kind: "fault", id: "a", event: "survived" },
      { kind: "fault", id: "b", event: "injected" },
      { kind: "fault", id: "stray", event: "survived" },
      { kind: "bad-input", id: "x", event: "tried" },
      { kind: "bad-input", id: "x", event: "rejected" },
    ]);
    expect(s.faults).toEqual({ injected: 2, survived: 1 });
    expect(s.badInputs).toEqual({ tried: 1, rejected: 1 });
  });

  it("a turn never seen answered is lost; one answered twice is not lost, but not exactly once either", () => {
    const s = summarise([
      { kind: "turn", id: "once", event: "sent" },
      { kind: "turn", id: "once", event: "observed", replies: 1 },
      { kind: "turn", id: "twice", event: "sent" },
      { kind: "turn", id: "twice", event: "observed", replies: 2 },
      { kind: "turn", id: "silent", event: "sent" },
      { kind: "turn", id: "empty", event: "sent" },
      { kind: "turn", id: "empty", event: "observed", replies: 0 },
    ]);
    expect(s.turns).toEqual({ sent: 4, answeredOnce: 1, duplicated: 1 });
    expect(s.lost).toEqual(["silent", "empty"]);
  });

  it("reads the JSON-lines file and prints one line per total", () => {
    const text = `${lines([
      { kind: "turn", id: "t", event: "sent" },
      { kind: "turn", id: "t", event: "observed", replies: 1 },
      { kind: "fault", id: "f", event: "injected" },
      { kind: "fault", id: "f", event: "survived" },
    ])}\n\n`;
    expect(summaryLines(summarise(parseTally(text)))).toEqual([
      "faults injected and survived: 1 injected, 1 survived",
      "bad inputs tried and rejected cleanly: 0 tried, 0 rejected cleanly",
      "turns sent and answered exactly once: 1 sent, 1 answered exactly once",
      "messages lost: 0",
    ]);
  });
});
