import { describe, expect, it } from "vitest";
import { blockTexts, envelope, type FakeSlack, postEvent } from "../fakes/slack/index.ts";
import type { FakeGithub } from "../fakes/github.ts";
import { startGithubApp } from "../helpers/github-app.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { type BotHandle, newChannel, SIGNING_SECRET, slash, slashResponse, startSlackSetup } from "./harness.ts";

/**
 * `/duet repo` end to end: the real bolt app against the fake Slack, the real
 * Worker, and a fake GitHub whose App is installed on acme/widgets only.
 * Only U0ALICE may change the run policy, so only she may link or unlink.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;
let github: FakeGithub;

startedForTests(
  async () => {
    const app = await startGithubApp(["acme/widgets"]);
    const setup = await startSlackSetup([{ SLACK_ALLOW_POLICY: "U0ALICE" }], { vars: app.vars }).catch(async (err) => {
      await app.github.close();
      throw err;
    });
    return { ...setup, github: app.github, stop: async () => (await setup.stop(), await app.github.close()) };
  },
  (s) => ({ stack, slack, bots: [bot], github } = s),
);

const roomOf = (channel: string) => `slack-${slack.id.teamId}-${channel}`;

/** The message a response_url body shows (its blocks; `text` is only the notification). */
const shown = (body: Record<string, unknown>) => ((body.blocks ?? []) as Parameters<typeof blockTexts>[0][]).flatMap(blockTexts).join("\n");

/** `/duet repo <text>` from `user`: what they see and whether the channel sees it too. */
async function repo(channel: string, text: string, user = "U0ALICE") {
  const { fields } = await slash(slack, bot, channel, `repo ${text}`.trim(), user);
  const body = await slashResponse(slack, fields);
  return { text: shown(body), visibility: body.response_type as string };
}

describe("Slack: /duet repo", () => {
  it("links a repository for everyone to see, shows it to the asker alone, and unlinks it", async () => {
    const channel = newChannel();
    expect(await repo(channel, "", "U0BOB")).toEqual({ text: ":package: No repository is linked here; `/duet repo owner/name` links one.", visibility: "ephemeral" });

    expect(await repo(channel, "acme/widgets@release/2.x")).toEqual({
      text: ":package: <@U0ALICE> linked `acme/widgets` (GitHub), branch `release/2.x`, to this room.",
      visibility: "in_channel",
    });
    expect(await stack.client.repo(roomOf(channel))).toEqual({ repo: "acme/widgets", branch: "release/2.x", provider: "github", source: "room", checkout: null });
    expect(await repo(channel, "", "U0BOB")).toEqual({
      text: ":package: This room works on `acme/widgets` (GitHub), branch `release/2.x` (set here). Not checked out yet.",
      visibility: "ephemeral",
    });

    expect(await repo(channel, "unlink")).toEqual({ text: ":package: <@U0ALICE> unlinked `acme/widgets` from this room.", visibility: "in_channel" });
    expect(await stack.client.repo(roomOf(channel))).toEqual({ repo: null });
    // Again: nothing to unlink, said to the asker alone.
    expect(await repo(channel, "remove")).toEqual({ text: ":package: No repository is linked here; nothing changed.", visibility: "ephemeral" });
    // The audit says who linked and unlinked what.
    const { fields } = await slash(slack, bot, channel, "audit", "U0BOB");
    expect(shown(await slashResponse(slack, fields))).toMatch(
      /<@U0ALICE> linked the repository `acme\/widgets`, branch `release\/2.x`[\s\S]*<@U0ALICE> unlinked the repository `acme\/widgets`/,
    );
  });

  it("the Home tab names a room's linked repository and branch", async () => {
    const channel = newChannel();
    slack.ws.members.set(channel, new Set(["U0ALICE"]));
    await repo(channel, "acme/widgets@release/2.x");
    const before = slack.ws.publishes.length;
    await postEvent(bot.url, envelope(slack, { type: "app_home_opened", user: "U0ALICE", channel: "D0HOME", tab: "home" }), { secret: SIGNING_SECRET });
    const { view } = await slack.waitFor(() => slack.ws.publishes.slice(before).find((p) => p.user === "U0ALICE"), "the Home view");
    const block = view.blocks.find((b) => blockTexts(b).join("").includes(`<#${channel}>`));
    expect(blockTexts(block!).join("\n")).toContain("Repository: `acme/widgets` on `release/2.x`");
  });

  it("a repository the App cannot see answers with the install link, in one line, and saves nothing", async () => {
    const channel = newChannel();
    const seen = await repo(channel, "acme/secret-plans");
    // The sentence as the Worker said it, then the ref of the trace that records the refusal.
    expect(seen.visibility).toBe("ephemeral");
    expect(seen.text).toMatch(/ \(ref [0-9a-f]{8}\)$/);
    expect(seen.text.replace(/ \(ref [0-9a-f]{8}\)$/, "")).toBe(
      `:warning: Duet's GitHub App cannot see acme/secret-plans: install it on acme (${github.url}/github-apps/duet-test/installations/new) with access to that repository, or check the name.`,
    );
    expect(await stack.client.repo(roomOf(channel))).toEqual({ repo: null });
  });

  it("someone who may not change the run policy may not link or unlink: told who may, nothing changes", async () => {
    const channel = newChannel();
    const refusal = { text: ":no_entry: Only <@U0ALICE> may link or unlink a repository here.", visibility: "ephemeral" };
    expect(await repo(channel, "acme/widgets", "U0MALLORY")).toEqual(refusal);
    expect(await stack.client.repo(roomOf(channel))).toEqual({ repo: null });
    await repo(channel, "acme/widgets");
    expect(await repo(channel, "unlink", "U0MALLORY")).toEqual(refusal);
    expect((await stack.client.repo(roomOf(channel))).repo).toBe("acme/widgets");
  });

  it("empty, oversized, malformed and hostile names each get one line for the asker, and nothing is saved", async () => {
    const channel = newChannel();
    // Linking mints a read token (to ask GitHub whether the repository is archived): none is minted for these.
    const minted = github.tokenRequests.length;
    const cases: [string, string][] = [
      ["@main", "Name the repository as owner/name, optionally @branch"],
      ["acme/widgets@", "Branch cannot be empty"],
      [`acme/${"n".repeat(101)}`, "Repository name must be 1-100 characters"],
      [`${"o".repeat(101)}/widgets`, "Repository owner must be 1-39 letters"],
      [`acme/widgets@${"b".repeat(256)}`, "Branch must be at most 255 characters"],
      ["a/b/c", 'Repository must be owner/name (one "/")'],
      ["acme/..", 'Repository name cannot be "." or contain ".."'],
      ["acme/my widgets", "Give one repository, owner/name or owner/name@branch, with no spaces"],
      ["acme/wïdgets", "Repository name must be 1-100 characters"],
      // Slack sends a mention as <@U0BOB>, which reaches the reader as @U0BOB.
      ["<@U0BOB>", "Name the repository as owner/name"],
      ["@everyone", "Name the repository as owner/name"],
      ["<!channel>/x", "Repository owner must be"],
      ["`acme/widgets`", "Repository owner must be"],
      ["acme/widgets\n@here", "Give one repository"],
    ];
    for (const [typed, rule] of cases) {
      const seen = await repo(channel, typed);
      expect([typed, seen.visibility]).toEqual([typed, "ephemeral"]);
      // One line, a warning that starts with the rule (the bot's own words: the Worker never saw it), quoting none of what was typed.
      expect(seen.text).toMatch(/^:warning: [^\n]+$/);
      expect(seen.text.startsWith(`:warning: ${rule}`)).toBe(true);
      expect(seen.text).not.toMatch(/<@U0BOB>|@everyone|<!channel>|@here|ïdg|nnnnnnnnnn|bbbbbbbbbb|oooooooooo/);
    }
    expect(await stack.client.repo(roomOf(channel))).toEqual({ repo: null });
    expect(github.tokenRequests.length).toBe(minted);
  });
});
