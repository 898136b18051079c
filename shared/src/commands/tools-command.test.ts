import { describe, expect, it } from "vitest";
import { parseDuetCommand } from "./commands.ts";
import { readToolsArgs, TOOLS_ARGS_MAX_CHARS } from "./tools-command.ts";

/** The one reader of `/duet tools …` that Slack, Discord and the CLI share. */

const problem = (text: string) => {
  const read = readToolsArgs(text);
  if (!("problem" in read)) throw new Error(`"${text}" was accepted`);
  return read.problem;
};

describe("readToolsArgs", () => {
  it("reads nothing as the list, and add, remove, room on and room off with their names", () => {
    expect(readToolsArgs("")).toEqual({});
    expect(readToolsArgs("  list ")).toEqual({});
    expect(readToolsArgs("add tracker https://mcp.example.com/mcp")).toEqual({ change: { add: { name: "tracker", url: "https://mcp.example.com/mcp", headers: {} } } });
    expect(readToolsArgs('ADD tracker https://mcp.example.com/mcp?x=1 X-Api-Key=k3y Authorization="Bearer a b" X-Team: blue')).toEqual({
      change: { add: { name: "tracker", url: "https://mcp.example.com/mcp?x=1", headers: { "X-Api-Key": "k3y", Authorization: "Bearer a b", "X-Team": "blue" } } },
    });
    // Slack sends a typed address as a link, with & escaped.
    expect(readToolsArgs("add t <https://mcp.example.com/mcp?a=1&amp;b=2|mcp.example.com>")).toEqual({ change: { add: { name: "t", url: "https://mcp.example.com/mcp?a=1&b=2", headers: {} } } });
    expect(readToolsArgs("remove tracker")).toEqual({ change: { remove: "tracker" } });
    expect(readToolsArgs("room On tracker")).toEqual({ change: { room: "on", name: "tracker" } });
    expect(readToolsArgs("room off tracker")).toEqual({ change: { room: "off", name: "tracker" } });
    expect(parseDuetCommand("tools room on tracker")).toEqual({ kind: "tools", change: { room: "on", name: "tracker" } });
    expect(parseDuetCommand("TOOLS")).toEqual({ kind: "tools" });
  });

  it("refuses empty, oversized, malformed and hostile input with one line that quotes none of it", () => {
    const secret = "sk-live-0123456789abcdef";
    const cases: [string, RegExp][] = [
      ["add", /^Give the server a name and its address/],
      ["add tracker", /^Give the server a name and its address/],
      ["remove", /^Name one server to remove/],
      ["remove a b", /^Name one server to remove/],
      ["room", /^Say on or off and name one server/],
      ["room maybe tracker", /^Say on or off/],
      ["room on", /^Say on or off/],
      ["delete tracker", /^Tools takes one of/],
      ["list everything", /^Tools takes one of/],
      [`add ${"n".repeat(33)} https://x.example.com`, /^Server name must be 1-32 characters/],
      ["add Tracker https://x.example.com", /^Server name must be/],
      ["add a.b https://x.example.com", /^Server name must be/],
      ["add <@U1> https://x.example.com", /^Server name must be/],
      ["add @everyone https://x.example.com", /^Server name must be/],
      ["remove `x`", /^Server name must be/],
      ["room on ../../etc", /^Server name must be/],
      ["add t not-a-url", /^URL must be an absolute http\(s\) address/],
      ["add t file:///etc/passwd", /^URL must be an absolute http\(s\) address/],
      ["add t javascript:alert(1)", /^URL must be an absolute http\(s\) address/],
      [`add t https://user:${secret}@x.example.com/`, /^URL must not carry credentials/],
      [`add t https://x.example.com/${"p".repeat(2001)}`, /^URL must be at most 2000 characters/],
      [`add t https://x.example.com Authorization: Bearer ${secret}`, /^Give each header as Name=value/],
      [`add t https://x.example.com X-Key="${secret}`, /^Give each header as Name=value/],
      [`add t https://x.example.com ${secret}`, /^Give each header as Name=value/],
      [`add t https://x.example.com Content-Type=${secret}`, /^Duet sets content-type, accept and the MCP headers itself/],
      [`add t https://x.example.com X-Key=${secret} x-key=${secret}`, /^Give each header once/],
      [`add t https://x.example.com X-Key=${"v".repeat(4097)}`, /^Header values must be one line of at most 4096 characters/],
      [`add t https://x.example.com ${Array.from({ length: 21 }, (_, i) => `X-H${i}=v`).join(" ")}`, /^That is more headers than a server may have \(at most 20\)/],
      ["x".repeat(TOOLS_ARGS_MAX_CHARS + 1), /^That is [\d,]+ characters; a tools command is at most/],
    ];
    for (const [text, rule] of cases) {
      const line = problem(text);
      expect([text.slice(0, 60), line]).toEqual([text.slice(0, 60), expect.stringMatching(rule)]);
      expect(line).not.toContain("\n");
      expect(line).not.toMatch(/sk-live|<@U1>|@everyone|etc\/passwd|nnnnnnnnnn|vvvvvvvvvv|pppppppppp|xxxxxxxxxx|alert/);
    }
  });

  it("a mistake typed after /duet is the tools command's problem, for the asker alone", () => {
    expect(parseDuetCommand("tools add")).toEqual({ kind: "tools", problem: expect.stringMatching(/^Give the server a name/) });
  });
});
