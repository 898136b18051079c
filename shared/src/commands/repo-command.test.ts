import { describe, expect, it } from "vitest";
import { parseDuetCommand } from "./commands.ts";
import { readRepoArgs } from "./repo-command.ts";

/** The one reader of `/duet repo …` that Slack, Discord and the CLI share. */

const problem = (text: string) => {
  const read = readRepoArgs(text);
  if (!("problem" in read)) throw new Error(`"${text}" was accepted`);
  return read.problem;
};

describe("readRepoArgs", () => {
  it("reads nothing as show, unlink or remove as unlink, sync as sync, owner/name and owner/name@branch as a link", () => {
    expect(readRepoArgs("")).toEqual({});
    expect(readRepoArgs("   ")).toEqual({});
    expect(readRepoArgs(" Unlink ")).toEqual({ change: "unlink" });
    expect(readRepoArgs("remove")).toEqual({ change: "unlink" });
    expect(readRepoArgs(" Sync ")).toEqual({ change: "sync" });
    expect(readRepoArgs("acme/widgets")).toEqual({ change: { repo: "acme/widgets" } });
    expect(readRepoArgs("acme/widgets.js@release/2.x")).toEqual({ change: { repo: "acme/widgets.js", branch: "release/2.x" } });
    // A branch may hold "@"; the first one ends the name.
    expect(readRepoArgs("acme/widgets@user@host")).toEqual({ change: { repo: "acme/widgets", branch: "user@host" } });
    expect(parseDuetCommand("repo acme/widgets@main")).toEqual({ kind: "repo", change: { repo: "acme/widgets", branch: "main" } });
    expect(parseDuetCommand("REPO")).toEqual({ kind: "repo" });
  });

  it("refuses empty, oversized, malformed and hostile input with one line that quotes none of it", () => {
    const cases: [string, RegExp][] = [
      ["\u200b", /^Repository must be owner\/name/],
      ["acme/wid\u200bgets", /^Repository name must be/],
      ["@main", /^Name the repository as owner\/name/],
      ["acme/widgets@", /^Branch cannot be empty/],
      [`${"o".repeat(40)}/widgets`, /^Repository owner must be 1-39/],
      [`acme/${"n".repeat(101)}`, /^Repository name must be 1-100/],
      [`acme/widgets@${"b".repeat(256)}`, /^Branch must be at most 255/],
      ["x".repeat(500), /^That is 500 characters; a repository with its branch is at most 396/],
      ["a/b/c", /^Repository must be owner\/name \(one "\/"\)/],
      ["..", /^Repository must be owner\/name/],
      ["acme/..", /^Repository name cannot be "\." or contain "\.\."/],
      ["acme/my widgets", /^Give one repository, owner\/name or owner\/name@branch, with no spaces/],
      ["acme/wïdgets", /^Repository name must be/],
      ["ａcme/widgets", /^Repository owner must be/],
      ["<@U1>", /^Repository must be owner\/name/],
      ["@everyone", /^Name the repository as owner\/name/],
      ["`acme/widgets`", /^Repository owner must be/],
      ["acme/widgets\n@here", /^Give one repository/],
      ["acme/widgets@main\u202e", /^Branch cannot hold spaces, control or invisible characters/],
    ];
    for (const [text, rule] of cases) {
      const line = problem(text);
      expect([text, line]).toEqual([text, expect.stringMatching(rule)]);
      expect(line).not.toContain("\n");
      expect(line).not.toMatch(/<@|@everyone|@here|ïdg|ａ/);
    }
  });
});
