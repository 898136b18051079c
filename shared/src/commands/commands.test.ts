import { describe, expect, it } from "vitest";
import { mentionedFact, parseDuetCommand, sanitizeChatText } from "./commands.ts";
import { CMD_MAX_CHARS, TEXT_MAX_CHARS } from "../wire/limits.ts";

describe("parseDuetCommand", () => {
  it("parses ask with its question", () => {
    expect(parseDuetCommand("ask how do I find large files?")).toEqual({ kind: "ask", text: "how do I find large files?" });
    expect(parseDuetCommand("  ASK\n  why is\tthis slow?  ")).toEqual({ kind: "ask", text: "why is\tthis slow?" });
  });

  it("cleans invisible and control characters out of a question", () => {
    const cmd = parseDuetCommand("\u200bask what\u200b does\u0007 this\u202e do?\r\nthanks\u0000");
    expect(cmd).toEqual({ kind: "ask", text: "what does this do?\nthanks" });
  });

  it("keeps a run command exactly as typed after the subcommand", () => {
    const heredoc = "cat <<'EOF' > a.sh\necho \"hi $USER\"\n\techo 'x'\nEOF\n";
    expect(parseDuetCommand(`run ${heredoc}`)).toEqual({ kind: "run", cmd: heredoc });
    expect(parseDuetCommand("Run   ls -la | grep '\\.ts$'")).toEqual({ kind: "run", cmd: "ls -la | grep '\\.ts$'" });
    expect(parseDuetCommand("run\nls")).toEqual({ kind: "run", cmd: "ls" });
  });

  it("parses history, reset and help in any case", () => {
    expect(parseDuetCommand("history")).toEqual({ kind: "history" });
    expect(parseDuetCommand("HiStOrY please")).toEqual({ kind: "history" });
    expect(parseDuetCommand("reset")).toEqual({ kind: "reset" });
    expect(parseDuetCommand("Help")).toEqual({ kind: "help" });
    expect(parseDuetCommand("--help")).toEqual({ kind: "help" });
  });

  it("answers empty text with help and no problem", () => {
    expect(parseDuetCommand("")).toEqual({ kind: "help" });
    expect(parseDuetCommand("  \n\u200b ")).toEqual({ kind: "help" });
  });

  it("explains ask and run without an argument", () => {
    expect(parseDuetCommand("ask")).toEqual({
      kind: "help",
      problem: "`/duet ask` needs a question, e.g. `/duet ask how do I find large files?`",
    });
    expect(parseDuetCommand("ask \u200b \u0001")).toEqual(parseDuetCommand("ask"));
    expect(parseDuetCommand("run   ")).toEqual({ kind: "help", problem: "`/duet run` needs a command, e.g. `/duet run ls -la`" });
  });

  it("names an unknown subcommand, safely quoted", () => {
    expect(parseDuetCommand("foo bar")).toEqual({ kind: "help", problem: "Unknown command `foo`." });
    expect(parseDuetCommand("fo`o")).toEqual({ kind: "help", problem: "Unknown command `fo'o`." });
    const long = parseDuetCommand("x".repeat(500));
    expect(long).toEqual({ kind: "help", problem: `Unknown command \`${"x".repeat(30)}…\`.` });
  });

  it("refuses text longer than the Worker accepts, saying by how much", () => {
    expect(parseDuetCommand(`ask ${"q".repeat(TEXT_MAX_CHARS)}`)).toEqual({ kind: "ask", text: "q".repeat(TEXT_MAX_CHARS) });
    expect(parseDuetCommand(`ask ${"q".repeat(TEXT_MAX_CHARS + 1)}`)).toEqual({
      kind: "help",
      problem: "That question is 8,001 characters long; Duet accepts at most 8,000. Please shorten it.",
    });
    expect(parseDuetCommand(`run ${"y".repeat(CMD_MAX_CHARS)}\n`)).toEqual({ kind: "run", cmd: `${"y".repeat(CMD_MAX_CHARS)}\n` });
    expect(parseDuetCommand(`run ${"y".repeat(CMD_MAX_CHARS + 5)}`)).toEqual({
      kind: "help",
      problem: "That command is 8,005 characters long; Duet accepts at most 8,000. Please shorten it.",
    });
  });
});

describe("sanitizeChatText", () => {
  it("removes zero-width and control characters, keeps newlines and tabs, trims", () => {
    expect(sanitizeChatText("  \ufeffhello\u200d\u2060 wo\u00adrld\x1b[31m\t!\r\nnext\rline \u0085 ")).toBe(
      "hello world[31m\t!\nnext\nline",
    );
  });
});

describe("mentionedFact", () => {
  it("reads the fact of `@Duet remember <fact>`, in any case, and nothing from a question or any other mention", () => {
    expect(mentionedFact("remember staging runs on port 8443")).toBe("staging runs on port 8443");
    expect(mentionedFact("  Remember:  make test needs --jobs 2 \n")).toBe("make test needs --jobs 2");
    expect(mentionedFact("remember when we moved staging?")).toBeNull();
    expect(mentionedFact("remember")).toBeNull();
    expect(mentionedFact("please remember the port")).toBeNull();
    expect(mentionedFact("remembering things")).toBeNull();
  });
});
