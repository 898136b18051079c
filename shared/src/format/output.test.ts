import { describe, expect, it } from "vitest";
import { combineOutput, formatCount, headTail, headTailLines } from "./output.ts";

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

describe("headTail", () => {
  it("returns text that fits unchanged", () => {
    expect(headTail("short\n", 100)).toEqual({ text: "short\n", omittedChars: 0, omittedLines: 0 });
  });

  it("keeps whole lines from the start and more from the end around a marker", () => {
    const text = numbered(1000); // "line 1\n" … "line 1000\n"
    const out = headTail(text, 400);
    expect(out.text.length).toBeLessThanOrEqual(400);
    const lines = out.text.split("\n");
    const markerAt = lines.findIndex((l) => l.startsWith("… "));
    const head = lines.slice(0, markerAt);
    const tail = lines.slice(markerAt + 1, -1);
    expect(head[0]).toBe("line 1");
    expect(tail.at(-1)).toBe("line 1000");
    // Whole lines, in order, with no gap except the omitted middle.
    expect(head.every((l, i) => l === `line ${i + 1}`)).toBe(true);
    const firstTail = Number(tail[0].slice(5));
    expect(tail.every((l, i) => l === `line ${firstTail + i}`)).toBe(true);
    expect(tail.join("\n").length).toBeGreaterThan(head.join("\n").length);
    expect(out.omittedLines).toBe(firstTail - 1 - head.length);
    expect(out.omittedChars).toBe(text.length - out.text.length + lines[markerAt].length + 1);
    expect(lines[markerAt]).toBe(
      `… ${formatCount(out.omittedLines)} lines (${formatCount(out.omittedChars)} characters) omitted; full output attached …`,
    );
  });

  it("formats large counts with thousands separators", () => {
    const out = headTail(numbered(20_000), 500);
    expect(out.omittedLines).toBeGreaterThan(19_900);
    expect(out.text).toMatch(/… 19,9\d\d lines \(\d{3},\d{3} characters\) omitted; full output attached …/);
    expect(formatCount(1234567)).toBe("1,234,567");
  });

  it("cuts mid-line when the output is one long line", () => {
    const text = "x".repeat(10_000);
    const out = headTail(text, 300, "");
    expect(out.text.length).toBeLessThanOrEqual(300);
    expect(out.text).toMatch(/^x+\n… 1 line \(\d,\d{3} characters\) omitted …\nx+$/);
    expect(out.omittedChars + out.text.length - out.text.split("\n")[1].length - 2).toBe(10_000);
  });

  it("never exceeds maxChars, even when the marker barely fits", () => {
    const text = numbered(300);
    for (let max = 0; max < 200; max++) {
      const out = headTail(text, max);
      expect(out.text.length, `max ${max}`).toBeLessThanOrEqual(max);
      expect(out.omittedChars).toBeGreaterThan(0);
    }
    expect(headTail(text, 10).text).toBe("lin…e 300\n");
  });
});

describe("headTailLines", () => {
  const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");

  it("keeps at most maxLines lines, the start and the end, around one marker that says what was cut", () => {
    const { text, omittedLines } = headTailLines(numbered(5_000), 40, 10_000, "shown: 40 lines");
    const lines = text.split("\n");
    expect(lines).toHaveLength(40);
    expect(lines[0]).toBe("line 1");
    expect(lines.at(-1)).toBe("line 5000");
    expect(omittedLines).toBe(4_961);
    expect(lines.filter((l) => l.startsWith("…"))).toEqual([expect.stringMatching(/^… 4,961 lines \([\d,]+ characters\) omitted; shown: 40 lines …$/)]);
  });

  it("leaves text within both limits alone, and cuts long lines by characters with one marker", () => {
    expect(headTailLines(numbered(40), 40, 10_000).text).toBe(numbered(40));
    const long = Array.from({ length: 50 }, () => "x".repeat(500)).join("\n");
    const { text } = headTailLines(long, 40, 2_000, "");
    expect(text.length).toBeLessThanOrEqual(2_000);
    expect(text.match(/omitted/g)).toHaveLength(1);
  });
});

describe("combineOutput", () => {
  it("shows stdout, then stderr under a separator when both are present", () => {
    expect(combineOutput("built\n", "warning: x\n")).toBe("built\n--- stderr ---\nwarning: x");
  });

  it("shows either stream alone without a separator", () => {
    expect(combineOutput("hello\n\n", "")).toBe("hello");
    expect(combineOutput("", "ls: cannot access 'x'\n")).toBe("ls: cannot access 'x'");
    expect(combineOutput("  \n", "boom")).toBe("boom");
    expect(combineOutput("ok", " \n")).toBe("ok");
  });

  it("is empty when nothing was printed", () => {
    expect(combineOutput("", "")).toBe("");
    expect(combineOutput("\n", "\n")).toBe("");
  });
});
