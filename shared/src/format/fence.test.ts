import { describe, expect, it } from "vitest";
import { NO_OUTPUT, codeBlock, escapeFences } from "./fence.ts";

/** Every ``` in a rendered block: exactly the opening and the closing fence must remain. */
const fenceCount = (s: string) => s.match(/```/g)?.length ?? 0;

describe("codeBlock", () => {
  it("wraps text in a fence, tagged with the language when given", () => {
    expect(codeBlock("total 0\n")).toBe("```\ntotal 0\n```");
    expect(codeBlock("echo hi", "bash")).toBe("```bash\necho hi\n```");
  });

  it("keeps output that prints ``` inside the block", () => {
    const readme = "# Title\n```js\nconsole.log(1)\n```\nmore ``````six";
    const block = codeBlock(readme, "md");
    expect(fenceCount(block)).toBe(2);
    expect(block.startsWith("```md\n")).toBe(true);
    expect(block.endsWith("\n```")).toBe(true);
    // The reader still sees the same characters: only zero-width spaces were added.
    expect(block.slice("```md\n".length, -"\n```".length).replaceAll("\u200b", "")).toBe(readme);
  });

  it("breaks a fence the way the team agreed: `\\u200b``", () => {
    expect(escapeFences("```")).toBe("`\u200b``");
    expect(escapeFences("a `` b ` c")).toBe("a `` b ` c");
  });

  it("shows a placeholder for empty or blank output", () => {
    expect(codeBlock("")).toBe("```\n" + NO_OUTPUT + "\n```");
    expect(codeBlock("  \n\n", "bash")).toBe("```bash\n(no output)\n```");
  });

  it("drops a language tag that could break the fence line", () => {
    expect(codeBlock("x", "js\n```")).toBe("```\nx\n```");
    expect(codeBlock("x", "c++")).toBe("```c++\nx\n```");
  });

  it("keeps a block correct when the text ends with backticks", () => {
    const block = codeBlock("a``");
    expect(block).toBe("```\na``\n```");
    expect(fenceCount(block)).toBe(2);
  });
});
