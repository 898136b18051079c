import { describe, expect, it } from "vitest";
import { mentionEvent, type SlackMessage } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { PrHost } from "../helpers/pr-host.ts";
import { botReplies, click, newChannel, readable, type SlackSetup } from "./harness.ts";
import { startSlackPrSetup } from "./pr-setup.ts";

/**
 * The model's `<pr>` when its answer reaches the thread through the outbox
 * (the bot that was asked died mid-turn): the real bolt bot's delivery loop
 * posts the answer, then proposes the change in the same thread, as the live
 * path does, once. Real Worker and bubblewrap executor, the fake GitHub over
 * `git http-backend`.
 */

let s: SlackSetup;
let host: PrHost;

startedForTests(
  // Answers unconfirmed for 300 ms are offered in the feed (15 s in production).
  () => startSlackPrSetup({ DUET_DELIVERY_GRACE_MS: "300" }),
  (setup) => {
    s = setup;
    host = setup.host;
  },
);

const hasOpen = (m: SlackMessage) => JSON.stringify(m.blocks ?? []).includes("duet_pr_open");
const valueOf = (msg: SlackMessage) => ((msg.blocks ?? []).find((b) => b.type === "actions") as { elements: { value: string }[] }).elements[0].value;

describe("the model's <pr> in an answer the outbox delivers", () => {
  it("proposes the change in the thread after the answer, once; Open pushes exactly the change", async () => {
    const { slack, stack } = s;
    const bot = s.bots[0];
    const channel = newChannel("CPROUT");
    const room = `slack-${slack.id.teamId}-${channel}`;
    await stack.client.setRepo(room, { repo: "acme/widgets", userId: "U0ALICE" });
    // The person's message (never sent to a bot: the bot it went to died before it could answer).
    const threadTs = String(mentionEvent(slack, { channel, text: "SAY: add kappa", user: "U0ALICE" }).event.ts);
    const deliver = { platform: "slack" as const, place: { channel, threadTs, ts: threadTs } };
    const answered = await stack.client.message(room, { text: "SAY: Added kappa. <run>cd ~/repo && echo kappa > src/k.txt</run>\n<pr>Add kappa</pr>", userId: "U0ALICE", idempotencyKey: "Ev-pr-outbox-1", deliver });
    expect(answered.pr).toEqual({ title: "Add kappa" });

    const proposal = await slack.waitFor(() => botReplies(slack, channel, threadTs).find(hasOpen), "the proposal in the thread");
    const thread = botReplies(slack, channel, threadTs);
    // The answer comes first, without the tag; the proposal follows it.
    expect(readable(thread[0])).toContain("Added kappa.");
    expect(thread.map(readable).join("\n")).not.toMatch(/<\/?pr>/i);
    expect(thread.indexOf(proposal)).toBeGreaterThan(0);
    expect(readable(proposal)).toMatch(/<@U0ALICE> proposes a pull request to `acme\/widgets` \(`main`\): `Add kappa`\nBranch `duet\/add-kappa-[0-9a-f]{6}` · 1 file changed, 1 insertion\(\+\)/);

    // A second confirm of the same message (a retry, another replica) is not the first: nothing more is proposed for it.
    const again = await stack.client.confirmDelivery(room, { key: "Ev-pr-outbox-1", messageId: thread[0].ts });
    expect(again).toEqual({ confirmed: true });
    // Barrier: a later answer through the same delivery loop is posted after anything more the first could have caused.
    await stack.client.message(room, { text: "SAY: later-marker", userId: "U0ALICE", idempotencyKey: "Ev-pr-outbox-2", deliver });
    await slack.waitFor(() => botReplies(slack, channel, threadTs).find((m) => readable(m).includes("later-marker")), "the later answer in the thread");
    expect(botReplies(slack, channel, threadTs).filter(hasOpen)).toHaveLength(1);

    await click(slack, bot, { channel, messageTs: proposal.ts, actionId: "duet_pr_open", value: valueOf(proposal), user: "U0ALICE" });
    const link = await slack.waitFor(() => botReplies(slack, channel, threadTs).find((m) => /pull request #\d+/.test(readable(m))), "the pull request's link");
    expect(link.ts).toBe(proposal.ts);
    const branch = /`(duet\/add-kappa-[0-9a-f]{6})`/.exec(readable(link))![1];
    expect(host.hostGit("diff", "--name-only", "main", branch)).toBe("src/k.txt");
    expect(host.github.pulls.filter((p) => p.head === branch)).toHaveLength(1);
  });
});
