import { describe, expect, it } from "vitest";
import { snowflake, user } from "../fakes/discord/index.ts";
import type { FakeGithub } from "../fakes/github.ts";
import { startGithubApp } from "../helpers/github-app.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { interactionAnswer, type DiscordHarness, startDiscordSetup } from "./harness.ts";
import { withRole } from "./roles.ts";

/**
 * `/duet repo` end to end through the real discord.js bot, the fake Discord,
 * the real Worker and a fake GitHub whose App is installed on acme/widgets
 * only. Manage Channels may change the run policy, so only it may link or
 * unlink: alice has it, mallory may only view and send.
 */

let stack: Stack;
let h: DiscordHarness;
let github: FakeGithub;
const mallory = user(snowflake(), "mallory");
/** A role nobody here needs: giving it out makes mallory a member who may only view and send. */
const NO_ROLE = snowflake();

startedForTests(
  async () => {
    const app = await startGithubApp(["acme/widgets"]);
    const setup = await startDiscordSetup({ env: () => ({ DISCORD_ALLOW_POLICY: "manage-channels" }), stack: { vars: app.vars } }).catch(async (err) => {
      await app.github.close();
      throw err;
    });
    return { ...setup, github: app.github, stop: async () => (await setup.stop(), await app.github.close()) };
  },
  (s) => ({ stack, h, github } = s),
);

const room = (channel: string) => `discord-${h.guildId}-${channel}`;

/** `/duet repo` with `name` (none: left out), answered: what the person sees and whether only they see it. */
async function repo(channel: string, name?: string, from = h.fake.alice) {
  await withRole(h, NO_ROLE, [], [mallory]);
  const rec = h.fake.interaction(channel, { subcommand: "repo", options: name === undefined ? {} : { name } }, from);
  const { text } = await interactionAnswer(h, rec);
  return { text, ephemeral: rec.ephemeral };
}

describe("Discord: /duet repo", () => {
  it("links a repository for the channel to see, shows it privately (a thread follows its channel's), and unlinks it", async () => {
    const ch = h.fake.addChannel(h.guildId, "repo-link");
    const th = h.fake.addThread(ch, "a thread");
    expect(await repo(ch)).toEqual({ text: "📦 No repository is linked here; `/duet repo name:owner/name` links one.", ephemeral: true });

    expect(await repo(ch, "acme/widgets@main")).toEqual({ text: `📦 <@${h.fake.alice.id}> linked \`acme/widgets\` (GitHub), branch \`main\`, to this room.`, ephemeral: false });
    expect(await stack.client.repo(room(ch))).toEqual({ repo: "acme/widgets", branch: "main", provider: "github", source: "room", checkout: null });
    expect(await repo(th, undefined, mallory)).toEqual({
      text: "📦 This room works on `acme/widgets` (GitHub), branch `main`, from this thread's channel. Not checked out yet.",
      ephemeral: true,
    });
    // The thread has no link of its own to remove: said privately, and the channel's stays.
    expect((await repo(th, "unlink")).text).toBe(
      "📦 This thread has no repository of its own to unlink; it follows its channel's, `acme/widgets`, which is unlinked in the channel. Nothing changed.",
    );
    expect((await stack.client.repo(room(ch))).repo).toBe("acme/widgets");

    expect(await repo(ch, "unlink")).toEqual({ text: `📦 <@${h.fake.alice.id}> unlinked \`acme/widgets\` from this room.`, ephemeral: false });
    expect(await stack.client.repo(room(ch))).toEqual({ repo: null });
    expect(await stack.client.repo(room(th))).toEqual({ repo: null });
  });

  it("a repository the App cannot see answers with the install link, in one line, and saves nothing", async () => {
    const ch = h.fake.addChannel(h.guildId, "repo-missing");
    const { text } = await repo(ch, "acme/secret-plans");
    // The sentence as the Worker said it, then the ref of the trace that records the refusal.
    expect(text).toMatch(/ \(ref [0-9a-f]{8}\)$/);
    expect(text.replace(/ \(ref [0-9a-f]{8}\)$/, "")).toBe(
      `⚠️ Duet's GitHub App cannot see acme/secret-plans: install it on acme (${github.url}/github-apps/duet-test/installations/new) with access to that repository, or check the name.`,
    );
    expect(await stack.client.repo(room(ch))).toEqual({ repo: null });
  });

  it("a member who may not change the run policy may not link or unlink: told privately who may, nothing changes", async () => {
    const ch = h.fake.addChannel(h.guildId, "repo-refused");
    const refused = { text: "⛔ Only members with the Manage Channels permission may link or unlink a repository here.", ephemeral: true };
    expect(await repo(ch, "acme/widgets", mallory)).toEqual(refused);
    expect(await stack.client.repo(room(ch))).toEqual({ repo: null });
    await repo(ch, "acme/widgets");
    expect(await repo(ch, "unlink", mallory)).toEqual(refused);
    expect((await stack.client.repo(room(ch))).repo).toBe("acme/widgets");
  });

  it("empty, oversized, malformed and hostile names each get one private line, and nothing is saved", async () => {
    const ch = h.fake.addChannel(h.guildId, "repo-bad");
    // Linking mints a read token (to ask GitHub whether the repository is archived): none is minted for these.
    const minted = github.tokenRequests.length;
    const cases: [string, string][] = [
      ["@main", "Name the repository as owner/name, optionally @branch"],
      ["\u200b", 'Repository must be owner/name (one "/")'],
      [`acme/${"n".repeat(101)}`, "Repository name must be 1-100 characters"],
      [`${"o".repeat(101)}/widgets`, "Repository owner must be 1-39 letters"],
      ["a/b/c", 'Repository must be owner/name (one "/")'],
      ["..", 'Repository must be owner/name (one "/")'],
      ["acme/my widgets", "Give one repository, owner/name or owner/name@branch, with no spaces"],
      ["acme/wïdgets", "Repository name must be 1-100 characters"],
      [`<@${h.fake.alice.id}>`, 'Repository must be owner/name (one "/")'],
      ["@everyone", "Name the repository as owner/name"],
      ["```acme/widgets```", "Repository owner must be"],
      ["acme/widgets\n@here", "Give one repository"],
    ];
    for (const [typed, rule] of cases) {
      const seen = await repo(ch, typed);
      expect([typed, seen.ephemeral]).toEqual([typed, true]);
      // One line starting with the rule (the bot's own words: the Worker never saw it), quoting none of what was typed.
      expect(seen.text).toMatch(/^⚠️ [^\n]+$/);
      expect(seen.text.startsWith(`⚠️ ${rule}`)).toBe(true);
      expect(seen.text).not.toMatch(/<@\d|@everyone|@here|ïdg|nnnnnnnnnn|oooooooooo/);
    }
    expect(await stack.client.repo(room(ch))).toEqual({ repo: null });
    expect(github.tokenRequests.length).toBe(minted);
  });
});
