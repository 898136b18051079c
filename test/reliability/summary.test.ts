import { describe, expect, it } from "vitest";
import { parseTally, summarise, summaryLines, type TallyEntry } from "./summary.ts";

/** The arithmetic behind the lines the suite prints, on hand-made tallies. */

const lines = (entries: TallyEntry[]) => entries.map((e) => JSON.stringify(e)).join("\n");

describe("the reliability tally", () => {
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
    ])}\n\n`;
    expect(summaryLines(summarise(parseTally(text)))).toEqual([
      "turns sent and answered exactly once: 1 sent, 1 answered exactly once",
      "messages lost: 0",
    ]);
  });
});
