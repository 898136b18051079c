import { describe, expect, it } from "vitest";
import type { FakeMessage } from "../fakes/discord/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { PrHost } from "../helpers/pr-host.ts";
import type { Stack } from "../helpers/stack.ts";
import type { DiscordHarness } from "./harness.ts";
import { startDiscordPrSetup } from "./pr-setup.ts";

/**
 * A room whose repository is on a plain git remote (DUET_GIT_REMOTE_URL, no
 * GitHub App), in Discord: the model's `<pr>` is proposed as a branch to push
 * with no pull request, and Open says which branch was pushed. The real
 * discord.js bot, Worker and bubblewrap executor; the remote is `git
 * http-backend` taking a token.
 */

let stack: Stack;
let h: DiscordHarness;
let host: PrHost;

startedForTests(
  () => startDiscordPrSetup({}, { gitRemote: true }),
  (s) => ({ stack, h, host } = s),
);

const hasOpen = (m: FakeMessage) => JSON.stringify(m.components ?? []).includes("duet-pr:open:");
const fromBot = (ch: string) => h.fake.messagesIn(ch).filter((m) => m.author.id === h.fake.botUser.id);

describe("Discord: a proposal on a plain git remote", () => {
  it("names a branch and no pull request; Open pushes it and shows the branch's name in place of the buttons", async () => {
    const ch = h.fake.addChannel(h.guildId, "pr-git");
    await stack.client.setRepo(`discord-${h.guildId}-${ch}`, { repo: "acme/widgets", userId: h.fake.alice.id });
    h.fake.message(ch, "SAY: Added kappa. <run>cd ~/repo && echo kappa > src/k.txt</run>\n<pr>Add kappa</pr>", { mention: true });
    await expect.poll(() => fromBot(ch).some(hasOpen), { timeout: 60_000 }).toBe(true);
    const proposal = fromBot(ch).find(hasOpen)!;
    expect(proposal.content).toMatch(new RegExp(`<@${h.fake.alice.id}> proposes a branch on \`acme/widgets\` off \`main\` \\(a plain git remote: no pull request\\): \`Add kappa\`\nBranch \`duet/add-kappa-[0-9a-f]{6}\``));
    expect(proposal.content).toContain("*Open pushes this change to its branch on the git remote (a plain git remote: no pull request is opened); Skip drops it.*");
    expect(proposal.content).not.toMatch(/pull request to|opens the pull request/);

    const openId = (proposal.components as { components: { custom_id: string }[] }[])[0].components[0].custom_id;
    const rec = h.fake.click(proposal, openId, h.fake.alice);
    await h.waitForLog(`click ${rec.id} `);
    // The branch's name is shown in place of the buttons, and nowhere else.
    const decided = h.fake.world.messages.get(proposal.id)!;
    const branch = /`(duet\/add-kappa-[0-9a-f]{6})`/.exec(decided.content)![1];
    expect(decided.content).toContain(`✅ <@${h.fake.alice.id}> pushed the change to branch \`${branch}\` of ${host.remote!.url}/git/acme/widgets.git (a plain git remote: open a merge request there from that branch).`);
    expect(fromBot(ch).filter((m) => m.content.includes("pushed the change")).map((m) => m.id)).toEqual([proposal.id]);
    expect(decided.content).not.toContain("Open pushes");
    expect(host.hostGit("diff", "--name-only", "main", branch)).toBe("src/k.txt");
    expect(host.remote!.pushes()).toBe(1);
  });
});
