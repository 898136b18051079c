import { describe, expect, it } from "vitest";
import { runDuet } from "../helpers/cli-run.ts";
import type { FakeGithub } from "../fakes/github.ts";
import { startGithubApp } from "../helpers/github-app.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { startStack, type Stack } from "../helpers/stack.ts";

/**
 * `duet repo` through the CLI's entry point against real Workers: one with a
 * GitHub App (the fake GitHub installed on acme/widgets only), one with none.
 */

let stack: Stack;
let bare: Stack;
let github: FakeGithub;

startedForTests(
  async () => {
    const app = await startGithubApp(["acme/widgets"]);
    const started: { stop(): Promise<void> }[] = [{ stop: () => app.github.close() }];
    const stop = async () => {
      for (const s of started.reverse()) await s.stop();
    };
    try {
      const withApp = await startStack({ vars: app.vars });
      started.push(withApp);
      const without = await startStack();
      started.push(without);
      return { withApp, without, github: app.github, stop };
    } catch (err) {
      await stop();
      throw err;
    }
  },
  (s) => ({ withApp: stack, without: bare, github } = s),
);

/** `duet ...argv`: the exit code and what it printed. */
const duet = runDuet;

describe("duet repo", () => {
  it("links, shows, and unlinks a room's repository", async () => {
    expect(await duet(stack, "repo", "cli-repo")).toEqual({ code: 0, out: "No repository is linked here; `duet repo cli-repo owner/name` links one.", err: "" });
    const linked = await duet(stack, "repo", "cli-repo", "acme/widgets@main");
    expect(linked).toEqual({ code: 0, out: expect.stringMatching(/^cli:\S+ linked `acme\/widgets` \(GitHub\), branch `main`, to this room\.$/), err: "" });
    expect(await duet(stack, "repo", "cli-repo")).toEqual({ code: 0, out: "This room works on `acme/widgets` (GitHub), branch `main` (set here). Not checked out yet.", err: "" });
    expect(await stack.client.repo("cli-repo")).toEqual({ repo: "acme/widgets", branch: "main", provider: "github", source: "room", checkout: null });
    expect((await duet(stack, "repo", "cli-repo", "unlink")).out).toMatch(/^cli:\S+ unlinked `acme\/widgets` from this room\.$/);
    expect(await stack.client.repo("cli-repo")).toEqual({ repo: null });
    expect(await duet(stack, "repo", "cli-repo", "unlink")).toEqual({ code: 0, out: "No repository is linked here; nothing changed.", err: "" });
  });

  it("a repository the App cannot see fails with the install link on one line, and saves nothing", async () => {
    expect(await duet(stack, "repo", "cli-repo-missing", "acme/secret-plans")).toEqual({
      code: 1,
      out: "",
      err: `Duet's GitHub App cannot see acme/secret-plans: install it on acme (${github.url}/github-apps/duet-test/installations/new) with access to that repository, or check the name.`,
    });
    expect(await stack.client.repo("cli-repo-missing")).toEqual({ repo: null });
  });

  it("a Worker with no GitHub App nor git remote says on one line what to set, and saves nothing", async () => {
    expect(await duet(bare, "repo", "cli-repo-bare", "acme/widgets")).toEqual({
      code: 1,
      out: "",
      err: "Linking a repository needs Duet's GitHub App or a git remote, and neither is set up: an admin sets GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY and GITHUB_APP_SLUG, or DUET_GIT_REMOTE_URL and DUET_GIT_REMOTE_TOKEN, on the Worker (see docs/configuration.md).",
    });
    expect(await bare.client.repo("cli-repo-bare")).toEqual({ repo: null });
  });

  it("empty, oversized, malformed and hostile names are usage errors on one line (exit 2), and nothing is saved", async () => {
    // Linking mints a read token (to ask GitHub whether the repository is archived): none is minted for these.
    const minted = github.tokenRequests.length;
    const cases: [string[], string][] = [
      [[""], "Name the repository as owner/name, optionally @branch"],
      [["@main"], "Name the repository as owner/name, optionally @branch"],
      [[`acme/${"n".repeat(101)}`], "Repository name must be 1-100 characters"],
      [[`${"o".repeat(101)}/widgets`], "Repository owner must be 1-39 letters"],
      [[`acme/widgets@${"b".repeat(256)}`], "Branch must be at most 255 characters"],
      [["a/b/c"], 'Repository must be owner/name (one "/")'],
      [[".."], 'Repository must be owner/name (one "/")'],
      [["acme/my", "widgets"], "Give one repository, owner/name or owner/name@branch, with no spaces"],
      [["acme/wïdgets"], "Repository name must be 1-100 characters"],
      [["<@U1>"], 'Repository must be owner/name (one "/")'],
      [["@everyone"], "Name the repository as owner/name"],
      [["`acme/widgets`"], "Repository owner must be"],
      [["acme/widgets\n@here"], "Give one repository"],
      [["acme/widgets@$(touch /tmp/x)"], "Give one repository"],
    ];
    for (const [args, rule] of cases) {
      const seen = await duet(stack, "repo", "cli-repo-bad", ...args);
      expect([args, seen.code, seen.out]).toEqual([args, 2, ""]);
      const [line, hint, ...more] = seen.err.split("\n");
      expect(line).toMatch(/^duet repo: /);
      expect(line).toContain(rule);
      expect(line).not.toMatch(/<@U1>|@everyone|@here|ïdg|nnnnnnnnnn|oooooooooo|bbbbbbbbbb|touch/);
      expect([hint, more]).toEqual(["Run `duet --help` for the commands.", []]);
    }
    expect(await stack.client.repo("cli-repo-bad")).toEqual({ repo: null });
    expect(github.tokenRequests.length).toBe(minted);
  });
});
