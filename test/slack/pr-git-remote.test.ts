import { describe, expect, it } from "vitest";
import type { SlackMessage } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { PrHost } from "../helpers/pr-host.ts";
import { answerTo, botReplies, click, mention, newChannel, readable, type SlackSetup } from "./harness.ts";
import { startSlackPrSetup } from "./pr-setup.ts";

/**
 * A room whose repository is on a plain git remote (DUET_GIT_REMOTE_URL, no
 * GitHub App), in Slack: the model's `<pr>` is proposed as what it is, a
 * branch to push with no pull request, and Open says which branch was
 * pushed. The real bolt bot, Worker and bubblewrap executor; the remote is
 * `git http-backend` taking a token.
 */

let s: SlackSetup;
let host: PrHost;

startedForTests(
  () => startSlackPrSetup({}, { gitRemote: true }),
  (setup) => {
    s = setup;
    host = setup.host;
  },
);

const hasOpen = (m: SlackMessage) => JSON.stringify(m.blocks ?? []).includes("duet_pr_open");
const valueOf = (msg: SlackMessage) => ((msg.blocks ?? []).find((b) => b.type === "actions") as { elements: { value: string }[] }).elements[0].value;

describe("Slack: a proposal on a plain git remote", () => {
  it("names a branch and no pull request; Open pushes it and shows the branch's name in place of the buttons", async () => {
    const { slack, stack } = s;
    const bot = s.bots[0];
    const channel = newChannel("CPRGIT");
    await stack.client.setRepo(`slack-${slack.id.teamId}-${channel}`, { repo: "acme/widgets", userId: "U0ALICE" });
    const m = await mention(slack, bot, { channel, text: "SAY: Added kappa. <run>cd ~/repo && echo kappa > src/k.txt</run>\n<pr>Add kappa</pr>", user: "U0ALICE" });
    await answerTo(slack, m);
    const proposal = await slack.waitFor(() => botReplies(slack, channel, m.threadTs).find(hasOpen), "the proposal in the thread");

    const shown = readable(proposal);
    expect(shown).toMatch(/<@U0ALICE> proposes a branch on `acme\/widgets` off `main` \(a plain git remote: no pull request\): `Add kappa`\nBranch `duet\/add-kappa-[0-9a-f]{6}` · 1 file changed, 1 insertion\(\+\)/);
    expect(shown).toContain("Open pushes this change to its branch on the git remote (a plain git remote: no pull request is opened); Skip drops it.");
    expect(shown).not.toMatch(/pull request to|opens the pull request/);
    expect(proposal.text).toBe("Branch proposed: Add kappa");

    await click(slack, bot, { channel, messageTs: proposal.ts, actionId: "duet_pr_open", value: valueOf(proposal), user: "U0ALICE" });
    // The branch's name is shown in place of the buttons, and nowhere else.
    const pushed = await slack.waitFor(() => botReplies(slack, channel, m.threadTs).find((r) => readable(r).includes("pushed the change")), "the pushed branch's line");
    expect(pushed.ts).toBe(proposal.ts);
    const decided = readable(pushed);
    const branch = /`(duet\/add-kappa-[0-9a-f]{6})`/.exec(decided)![1];
    expect(decided).toContain(`:white_check_mark: <@U0ALICE> pushed the change to branch \`${branch}\` of ${host.remote!.url}/git/acme/widgets.git (a plain git remote: open a merge request there from that branch).`);
    expect(botReplies(slack, channel, m.threadTs).filter((r) => readable(r).includes("pushed the change"))).toHaveLength(1);
    expect(decided).not.toContain("Open pushes");
    expect(host.hostGit("diff", "--name-only", "main", branch)).toBe("src/k.txt");
    expect(host.remote!.pushes()).toBe(1);
  });
});
