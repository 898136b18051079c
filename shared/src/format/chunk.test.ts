import { describe, expect, it } from "vitest";
import { chunkMessage, chunkParts } from "./chunk.ts";

/** Fence lines as chat renders them; a message is balanced when it has an even number. */
const fenceLines = (s: string) => s.split("\n").filter((l) => /^[ \t]*```/.test(l));
const balanced = (s: string) => fenceLines(s).length % 2 === 0;
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Deterministic PRNG (mulberry32) so a failing case can be replayed from its seed. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomText(rand: () => number): string {
  const pick = <T,>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  const word = () => pick(["ls", "the", "output", "npm", "install", "-la", "über", "🚀", "x", "configuration", "a`b", "``"]);
  const lines: string[] = [];
  const n = Math.floor(rand() * 40);
  for (let i = 0; i < n; i++) {
    const kind = rand();
    if (kind < 0.15) lines.push(pick(["```bash", "```", "   ```py", "```typescript", "\t```", "``` "]));
    else if (kind < 0.25) lines.push("");
    else if (kind < 0.32) lines.push(pick(["a", "Zx9", "🚀"]).repeat(Math.floor(rand() * 120) + 1)); // no spaces at all
    else if (kind < 0.37) lines.push("run ```ls -la``` then ```pwd```");
    else lines.push(Array.from({ length: Math.floor(rand() * 25) + 1 }, word).join(pick([" ", " ", "  ", "\t"])));
  }
  return lines.join("\n") + (rand() < 0.5 ? "\n" : "");
}

describe("chunkMessage", () => {
  it("returns no messages for empty text and one for text that fits", () => {
    expect(chunkMessage("", 100)).toEqual([]);
    expect(chunkMessage("hello world", 100)).toEqual(["hello world"]);
    expect(chunkMessage("x".repeat(100), 100)).toEqual(["x".repeat(100)]);
  });

  it("refuses a maxChars too small to hold fences", () => {
    expect(() => chunkMessage("abc", 19)).toThrow(RangeError);
    expect(() => chunkMessage("abc", 25.5)).toThrow(/at least 20/);
  });

  it("splits at a blank line before a line end or a space", () => {
    const text = "First paragraph line one\nline two\n\nSecond paragraph that is long";
    expect(chunkMessage(text, 45)).toEqual(["First paragraph line one\nline two\n\n", "Second paragraph that is long"]);
  });

  it("splits at a line end before a space", () => {
    expect(chunkMessage("alpha beta gamma\ndelta epsilon zeta eta", 30)).toEqual(["alpha beta gamma\n", "delta epsilon zeta eta"]);
  });

  it("splits prose without newlines at spaces", () => {
    const text = "one two three four five six seven eight nine ten eleven twelve";
    const chunks = chunkMessage(text, 20);
    expect(chunks.join("")).toBe(text);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(20);
      expect(c.endsWith(" ") || c === chunks.at(-1)).toBe(true);
    }
  });

  it("hard-splits a line longer than maxChars", () => {
    expect(chunkMessage("a".repeat(50), 20)).toEqual(["a".repeat(16), "a".repeat(16), "a".repeat(18)]);
  });

  it("closes a code block at a split and reopens it with the same opening line", () => {
    const code = Array.from({ length: 6 }, (_, i) => `echo line number ${i}`).join("\n");
    const text = `Try this:\n\n\`\`\`bash\n${code}\n\`\`\`\nDone.`;
    const chunks = chunkMessage(text, 70);
    expect(chunks).toEqual([
      "Try this:\n\n```bash\necho line number 0\necho line number 1\n```",
      "```bash\necho line number 2\necho line number 3\necho line number 4\n```",
      "```bash\necho line number 5\n```\nDone.",
    ]);
  });

  it("closes a code block that the text never closes", () => {
    expect(chunkMessage("```js\nconsole.log(1)", 100)).toEqual(["```js\nconsole.log(1)\n```"]);
  });

  it("does not turn an inline ``` into a fence at the start of a message", () => {
    const text = "please run ```ls -la``` and then run ```pwd``` in the sandbox now";
    for (const c of chunkMessage(text, 24)) {
      expect(c.length).toBeLessThanOrEqual(24);
      expect(fenceLines(c)).toEqual([]);
    }
  });

  it("leaves out whitespace-only pieces, which chat platforms reject", () => {
    const chunks = chunkMessage(`start\n${" ".repeat(100)}\nend`, 20);
    expect(chunks.every((c) => c.trim() !== "")).toBe(true);
    expect(chunks.join("").replace(/\s+/g, "")).toBe("startend");
  });

  it("keeps emoji whole at a hard split", () => {
    const chunks = chunkMessage("🚀".repeat(30), 21);
    expect(chunks.join("")).toBe("🚀".repeat(30));
    for (const c of chunks) expect(loneSurrogate.test(c)).toBe(false);
  });

  it("falls back to a bare ``` when the opening line is too long to repeat", () => {
    const opener = "```" + "x".repeat(30);
    const chunks = chunkMessage(`${opener}\n${"line\n".repeat(10)}\`\`\``, 45);
    expect(chunks[0].startsWith(opener)).toBe(true);
    expect(chunks[1].startsWith("```\n")).toBe(true);
    for (const c of chunks) expect(balanced(c)).toBe(true);
  });

  it("holds its guarantees for many random texts with fences", () => {
    for (let seed = 1; seed <= 1000; seed++) {
      const rand = rng(seed);
      const text = randomText(rand);
      const maxChars = 20 + Math.floor(rand() * 200);
      const parts = chunkParts(text, maxChars);
      const chunks = chunkMessage(text, maxChars);
      const where = `seed ${seed}, maxChars ${maxChars}`;
      // Nothing lost, nothing reordered: the original bodies join back to the text.
      expect(parts.map((p) => p.body).join(""), where).toBe(text);
      // What is sent is the non-blank parts, each only gaining whole fence lines.
      const sent = parts.filter((p) => p.body.trim() !== "");
      expect(chunks, where).toEqual(sent.map((p) => p.reopen + p.body + p.close));
      for (const p of sent) {
        expect(p.reopen === "" || /^[ \t]*```[^\n]*\n$/.test(p.reopen), where).toBe(true);
        expect(["", "```", "\n```"], where).toContain(p.close);
      }
      for (const c of chunks) {
        expect(c.length, where).toBeLessThanOrEqual(maxChars);
        expect(balanced(c), `${where}: ${JSON.stringify(c)}`).toBe(true);
        expect(loneSurrogate.test(c), where).toBe(false);
      }
    }
  });

  it("splits 5 MB of text without newlines", () => {
    const text = "abc ".repeat(1_250_000);
    const chunks = chunkMessage(text, 2000);
    expect(chunks.join("")).toBe(text);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(2000);
  });
});
