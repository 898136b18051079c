import { describe, expect, it } from "vitest";
import { modelAnswers, type ModelAnswerFixture } from "../../test/fixtures/model-answers/index.ts";
import { ModelTextReader, readModelText, type ReaderEvent } from "./reader.ts";

const FULL_TAG = /<\/?run>/i;
/** The end of a piece that could still grow into a tag: "<", "<r", "</ru", ... */
const TAG_START_AT_END = /<\/?(r(u(n)?)?)?$/i;

const closings = (text: string) => text.toLowerCase().split("</run>").length - 1;

/** Reads `chunks` one at a time, checking every delta as it is handed out. */
function readInChunks(chunks: string[], max: number) {
  const reader = new ModelTextReader(max);
  const events: ReaderEvent[] = [];
  let sent = "";
  for (const chunk of chunks) {
    const closedBefore = closings(sent);
    sent += chunk;
    const out = reader.push(chunk);
    for (const e of out) {
      if (e.type === "text") {
        expect(e.delta, `delta after ${JSON.stringify(sent)}`).not.toMatch(FULL_TAG);
        // "a < b" may end a delta with "<" once the reader has seen what follows it, never before.
        const end = TAG_START_AT_END.exec(e.delta);
        if (end) expect(sent.toLowerCase().endsWith(end[0].toLowerCase()), `delta after ${JSON.stringify(sent)}`).toBe(false);
      } else {
        // A command is handed out as soon as its closing tag has arrived, not later.
        expect(closings(sent), `command after ${JSON.stringify(sent)}`).toBeGreaterThan(closedBefore);
      }
    }
    events.push(...out);
  }
  const end = reader.finish();
  events.push(...end.events);
  const deltas = events.filter((e) => e.type === "text").map((e) => e.delta);
  const commands = events.flatMap((e) => (e.type === "command" ? [e] : []));
  return { reply: end.reply, text: deltas.join(""), commands, deltas };
}

function expectReads(f: ModelAnswerFixture, chunks: string[]) {
  const max = f.max ?? 5;
  const r = readInChunks(chunks, max);
  const where = `${f.name} in ${JSON.stringify(chunks)}`;
  expect(r.reply.explanation, where).toBe(f.explanation);
  expect(r.reply.commands, where).toEqual(f.commands);
  expect(r.reply.skipped, where).toEqual(f.skipped ?? []);
  // The deltas are the explanation: a streamed reply ends on exactly what the JSON answer holds.
  expect(r.text, where).toBe(f.explanation);
  expect(r.commands, where).toEqual(f.commands.map((cmd, index) => ({ type: "command", index, cmd })));
}

/** A small seeded generator, so a failing split can be reproduced. */
function random(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

describe("reading model answers (fixture corpus)", () => {
  for (const f of modelAnswers) {
    describe(f.name, () => {
      it("reads as expected whole", () => {
        expect(readModelText(f.text, f.max ?? 5)).toMatchObject({ explanation: f.explanation, commands: f.commands, skipped: f.skipped ?? [] });
        expectReads(f, [f.text]);
      });

      it("reads the same split in two at every point", () => {
        for (let i = 1; i < f.text.length; i++) expectReads(f, [f.text.slice(0, i), f.text.slice(i)]);
      });

      it("reads the same one character at a time, and in random pieces", () => {
        expectReads(f, Array.from(f.text));
        const next = random(f.text.length);
        for (let round = 0; round < 20; round++) {
          const chunks: string[] = [];
          for (let i = 0; i < f.text.length; ) {
            const n = 1 + Math.floor(next() * 9);
            chunks.push(f.text.slice(i, i + n));
            i += n;
          }
          expectReads(f, chunks);
        }
      });
    });
  }
});

describe("ModelTextReader as a stream", () => {
  it("holds back a tag split across pieces and hands out the command when it closes", () => {
    const reader = new ModelTextReader(5);
    expect(reader.push("Listing now: <ru")).toEqual([{ type: "text", delta: "Listing now:" }]);
    expect(reader.push("n>ls</r")).toEqual([]);
    expect(reader.push("un> done")).toEqual([
      { type: "command", index: 0, cmd: "ls" },
      { type: "text", delta: " `ls` done" },
    ]);
    expect(reader.finish().reply).toEqual({ explanation: "Listing now: `ls` done", commands: ["ls"], skipped: [], notes: [], attachments: [], pr: null, facts: [] });
  });

  it("streams prose before its line ends, but waits on a line that may open a code block", () => {
    const reader = new ModelTextReader(5);
    expect(reader.push("Here is the plan")).toEqual([{ type: "text", delta: "Here is the plan" }]);
    expect(reader.push("\n``")).toEqual([]);
    expect(reader.push("`bash\nls\n```\n")).toEqual([{ type: "text", delta: "\n```bash\nls\n```\n_(not run: Duet only runs commands the model puts in run tags)_" }]);
  });

  it("lists the notes apart as well as at the end of the explanation", () => {
    const r = readModelText("Try <run>cmd</run> and <run>ls", 5);
    expect(r.notes).toEqual(["`cmd` was not run: it is a placeholder, not a command.", "The answer was cut off inside a command (`ls`), so it was not run."]);
    expect(r.commands).toEqual([]);
  });
});

describe("<attach> tags", () => {
  it("lists the attached paths once each, shows no tag, and never runs them", () => {
    const r = readModelText("Here is the chart. <attach>out/chart.png</attach>\n<run>ls</run> <attach> out/chart.png </attach><attach>report.csv</attach>", 5);
    expect(r.attachments).toEqual(["out/chart.png", "report.csv"]);
    expect(r.commands).toEqual(["ls"]);
    expect(r.explanation).not.toContain("attach");
    expect(r.explanation).not.toContain("chart.png");
  });

  it("is read as it streams, a tag split across pieces included", () => {
    const reader = new ModelTextReader(5);
    const text: string[] = [];
    for (const piece of ["Done <att", "ach>a.p", "ng</atta", "ch> now"]) for (const e of reader.push(piece)) if (e.type === "text") text.push(e.delta);
    const end = reader.finish();
    for (const e of end.events) if (e.type === "text") text.push(e.delta);
    expect(end.reply.attachments).toEqual(["a.png"]);
    expect(text.join("")).not.toMatch(/<|att/);
  });
});
