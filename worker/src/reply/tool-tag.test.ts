import { describe, expect, it } from "vitest";
import { ModelTextReader, readModelText, TOOL_NAMELESS_NOTE } from "./reader.ts";
import { toolCallOf } from "./tool-tag.ts";

describe("tool calls in the model's text", () => {
  it("reads a tool tag as one more command, its arguments on one line", () => {
    const reply = readModelText('Let me look.\n<tool name="tracker.lookup">\n{"id": 7}\n</tool>\n', 3);
    expect(reply.commands).toEqual(['tool: tracker.lookup {"id":7}']);
    expect(reply.explanation).toBe("Let me look.");
    expect(toolCallOf(reply.commands[0])).toEqual({ server: "tracker", tool: "lookup", args: '{"id":7}' });
  });

  it("reads leniently: single quotes, a bare name, no name attribute, fenced arguments", () => {
    const text = "<tool name='a.b'>{}</tool> <tool name=a.c></tool> <tool>a.d {\"x\":1}</tool> <tool name=\"a.e\">```json\n{\"y\":2}\n```</tool>";
    expect(readModelText(text, 9).commands).toEqual(["tool: a.b {}", "tool: a.c {}", 'tool: a.d {"x":1}', 'tool: a.e {"y":2}']);
  });

  it("streams a tag split anywhere, and never shows the tag", () => {
    const text = 'Checking <tool name="tracker.lookup">{"id":1}</tool> done.';
    for (let size = 1; size <= 7; size++) {
      const reader = new ModelTextReader(3);
      const shown: string[] = [];
      for (let i = 0; i < text.length; i += size) for (const e of reader.push(text.slice(i, i + size))) if (e.type === "text") shown.push(e.delta);
      const end = reader.finish();
      expect(end.reply.commands).toEqual(['tool: tracker.lookup {"id":1}']);
      expect(shown.join("") + end.events.map((e) => (e.type === "text" ? e.delta : "")).join("")).not.toContain("<tool");
    }
  });

  it("a call with no server.tool name is a note, never run; `<toolbox>` is just text", () => {
    const reply = readModelText('<tool name="lookup">{}</tool> and a <toolbox> here', 3);
    expect(reply.commands).toEqual([]);
    expect(reply.notes).toEqual([TOOL_NAMELESS_NOTE]);
    expect(reply.explanation).toContain("a <toolbox> here");
  });

  it("a hostile name (a shell command in it) is refused", () => {
    expect(readModelText('<tool name="a.b;rm -rf /">{}</tool>', 3).commands).toEqual([]);
    expect(toolCallOf("tool: A.b {}")).toBeNull();
    expect(toolCallOf("echo tool: a.b")).toBeNull();
  });
});
