import { describe, expect, it } from "vitest";
import { parseModelReply } from "./run-tags.ts";

describe("parseModelReply", () => {
  it("takes commands in order, strips the tags, and caps the count", () => {
    const r = parseModelReply("First <run>ls</run> then <run>pwd</run> and <run>whoami</run>.", 2);
    expect(r).toEqual({ explanation: "First  then  and .", commands: ["ls", "pwd"], skipped: ["whoami"] });
  });

  it("reads a command the model fenced as markdown inside the tag", () => {
    const r = parseModelReply("Listing:\n<run>\n```bash\nls -la\n```\n</run>", 5);
    expect(r.commands).toEqual(["ls -la"]);
    expect(r.explanation).toBe("Listing:");
    expect(parseModelReply("<run>```\nfind . -size +10M\n```</run>", 5).commands).toEqual(["find . -size +10M"]);
  });

  it("reads a command in inline code inside the tag, and keeps backticks that are part of the command", () => {
    expect(parseModelReply("<run>`du -sh .`</run>", 5).commands).toEqual(["du -sh ."]);
    expect(parseModelReply("<run>echo `date` > now.txt</run>", 5).commands).toEqual(["echo `date` > now.txt"]);
    expect(parseModelReply("<run>cat <<'EOF'\n```\nEOF</run>", 5).commands).toEqual(["cat <<'EOF'\n```\nEOF"]);
  });

  it("drops a code fence that held only <run> tags, so chat shows no empty block", () => {
    const r = parseModelReply("I'll check the disk.\n\n```bash\n<run>df -h</run>\n```\n\nThat shows each mount.", 5);
    expect(r.commands).toEqual(["df -h"]);
    expect(r.explanation).toBe("I'll check the disk.\n\nThat shows each mount.");
  });

  it("keeps a fence that still has content", () => {
    const r = parseModelReply("Example:\n```\nls -la\n```\n<run>ls</run>", 5);
    expect(r.explanation).toBe("Example:\n```\nls -la\n```");
  });

  it("accepts the tag in any case and ignores empty ones", () => {
    expect(parseModelReply("<RUN>ls</RUN> <run>  </run> <run>\n```sh\n```\n</run>", 5).commands).toEqual(["ls"]);
  });
});
