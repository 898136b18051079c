import { describe, expect, it } from "vitest";
import { pageChanges, pagesOf } from "./pages.ts";

const FENCE_LINE = /^[ \t]*```/;
const fenceLines = (page: string) => page.split("\n").filter((l) => FENCE_LINE.test(l)).length;

describe("live pages", () => {
  it("continues a growing answer in new messages without breaking a code block, and settles earlier pages", () => {
    const text = "Here is the log:\n```bash\n" + Array.from({ length: 150 }, (_, i) => `line ${i} of the build output`).join("\n") + "\n```\nDone.";
    let shown: string[] = [];
    const posted: string[] = [];
    // The text arrives a few characters at a time, as model deltas do.
    for (let end = 1; end <= text.length; end += 37) {
      const next = pagesOf(text.slice(0, end), 2000, "…");
      const { edits, posts } = pageChanges(shown, next);
      // Only the last shown page ever changes: the ones before it are settled.
      for (const e of edits) expect(e.index).toBeGreaterThanOrEqual(shown.length - 1);
      posted.push(...posts);
      shown = next;
    }
    const final = pagesOf(text, 2000, "…");
    const { edits } = pageChanges(shown, final);
    for (const e of edits) shown[e.index] = e.content;
    expect(shown.length).toBeGreaterThan(2);
    for (const page of shown) {
      expect(page.length).toBeLessThanOrEqual(2000);
      expect(fenceLines(page) % 2).toBe(0);
    }
    expect(shown[1].startsWith("```bash\n")).toBe(true);
    expect(posted).toHaveLength(shown.length);
  });

  it("shows the placeholder before any text and diffs edits and posts", () => {
    expect(pagesOf("", 2000, "Working…")).toEqual(["Working…"]);
    expect(pageChanges(["a", "b"], ["a", "b2", "c"])).toEqual({ edits: [{ index: 1, content: "b2" }], posts: ["c"] });
  });
});
