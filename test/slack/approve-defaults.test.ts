import { OWN_PROPOSAL } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { directMessageEvent, type FakeSlack, postEvent, type SlackMessage } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, bodyText, click, mention, newChannel, readable, SIGNING_SECRET, slash, slashResponse, startSlackSetup } from "./harness.ts";

/**
 * Who may approve or change the policy when the operator set less than everything, through the real
 * bolt app, the fake Slack and a real Worker whose rooms default to `approve`
 * (DUET_RUN_POLICY), DMs included. `runOnly` sets only SLACK_ALLOW_RUN;
 * `notOwn` sets only DUET_APPROVE_OWN=no; `explicit` also sets SLACK_ALLOW_APPROVE.
 */

let stack: Stack;
let slack: FakeSlack;
let runOnly: BotHandle;
let notOwn: BotHandle;
let explicit: BotHandle;

startedForTests(
  () => startSlackSetup([{ SLACK_ALLOW_RUN: "U0ALICE" }, { DUET_APPROVE_OWN: "no" }, { SLACK_ALLOW_RUN: "U0ALICE", SLACK_ALLOW_APPROVE: "U0BOB" }], { vars: { DUET_RUN_POLICY: "approve" } }),
  (s) => ({ stack, slack, bots: [runOnly, notOwn, explicit] } = s),
);

const ran = (cmd: string) => stack.executor!.calls.filter((c) => c.command === cmd).length;

/** What `user` alone sees in `channel` from now on, once it arrives. */
function nextEphemeral(channel: string, user: string) {
  const before = slack.ws.ephemeral.length;
  return () => slack.waitFor(() => slack.ws.ephemeral.slice(before).find((e) => e.channel === channel && e.user === user), `an ephemeral message for ${user}`);
}

/** U0BOB asks in a new channel; the answer proposes `cmd` (the room's default policy is approve). */
async function proposeFor(bot: BotHandle, cmd: string): Promise<{ channel: string; proposal: SlackMessage }> {
  const channel = newChannel();
  const m = await mention(slack, bot, { channel, user: "U0BOB", text: `SAY: Proposing. <run>${cmd}</run>` });
  const [proposal] = await answerTo(slack, m);
  return { channel, proposal: structuredClone(proposal) };
}

async function pressRun(bot: BotHandle, channel: string, msg: SlackMessage, user: string) {
  const button = (msg.blocks ?? []).find((b) => b.type === "actions")!.elements.find((e: { action_id: string }) => e.action_id === "duet_approval_run");
  const delivery = await click(slack, bot, { channel, messageTs: msg.ts, actionId: "duet_approval_run", value: button.value, user });
  expect(delivery.status).toBe(200);
}

/** Waits until the proposal shows `who` ran `cmd`. */
const shownRunBy = (channel: string, msg: SlackMessage, who: string, cmd: string) =>
  slack.waitFor(() => readable(slack.ws.find(channel, msg.ts)!).includes(`<@${who}> ran \`${cmd}\``), `${who}'s run shown`);

describe("with only SLACK_ALLOW_RUN set", () => {
  it("refuses Run to someone outside it, on their own proposal too, and runs it for someone in it", async () => {
    const { channel, proposal } = await proposeFor(runOnly, "echo run-list-approves");
    const refusal = nextEphemeral(channel, "U0BOB");
    await pressRun(runOnly, channel, proposal, "U0BOB");
    expect((await refusal()).text).toMatch(/Only <@U0ALICE> may run or skip the commands Duet proposes here; nothing was run\./);
    expect(ran("echo run-list-approves")).toBe(0);
    await pressRun(runOnly, channel, proposal, "U0ALICE");
    await shownRunBy(channel, proposal, "U0ALICE", "echo run-list-approves");
    expect(ran("echo run-list-approves")).toBe(1);
  });

  it("refuses /duet policy auto to someone outside it, privately, leaving the room under approve, and lets someone in it change it", async () => {
    const channel = newChannel();
    const room = `slack-${slack.id.teamId}-${channel}`;
    const refused = await slashResponse(slack, (await slash(slack, runOnly, channel, "policy auto", "U0BOB")).fields);
    expect(refused.response_type).toBe("ephemeral");
    expect(bodyText(refused)).toContain("Only <@U0ALICE> may change the run policy here.");
    expect(await stack.client.policy(room)).toEqual({ runPolicy: "approve", source: "default" });
    // His next question still only proposes its command.
    const m = await mention(slack, runOnly, { channel, user: "U0BOB", text: "SAY: Proposing. <run>echo after-refused-policy</run>" });
    await answerTo(slack, m);
    expect(ran("echo after-refused-policy")).toBe(0);
    const set = await slashResponse(slack, (await slash(slack, runOnly, channel, "policy auto", "U0ALICE")).fields);
    expect(bodyText(set)).toContain("<@U0ALICE> set the run policy to *auto*");
    expect((await stack.client.policy(room)).runPolicy).toBe("auto");
  });

  it("lets an explicit SLACK_ALLOW_APPROVE win over it", async () => {
    const { channel, proposal } = await proposeFor(explicit, "echo approve-list-wins");
    await pressRun(explicit, channel, proposal, "U0BOB");
    await shownRunBy(channel, proposal, "U0BOB", "echo approve-list-wins");
    expect(ran("echo approve-list-wins")).toBe(1);
  });
});

describe("with DUET_APPROVE_OWN=no", () => {
  it("tells the asker privately that someone else must decide, runs nothing, and runs it for another person", async () => {
    const { channel, proposal } = await proposeFor(notOwn, "echo not-my-own");
    const refusal = nextEphemeral(channel, "U0BOB");
    await pressRun(notOwn, channel, proposal, "U0BOB");
    expect((await refusal()).text).toContain(OWN_PROPOSAL);
    expect(slack.ws.find(channel, proposal.ts)!.edits).toBe(proposal.edits);
    await pressRun(notOwn, channel, proposal, "U0CAROL");
    await shownRunBy(channel, proposal, "U0CAROL", "echo not-my-own");
    expect(ran("echo not-my-own")).toBe(1);
    const audit = (await stack.client.audit(`slack-${slack.id.teamId}-${channel}`)).entries.find((e) => e.kind === "approved");
    expect(audit).toMatchObject({ requestedBy: "U0BOB", decidedBy: "U0CAROL" });
  });

  it("lets the asker decide by default", async () => {
    const { channel, proposal } = await proposeFor(explicit, "echo own-by-default");
    await pressRun(explicit, channel, proposal, "U0BOB");
    await shownRunBy(channel, proposal, "U0BOB", "echo own-by-default");
    expect(ran("echo own-by-default")).toBe(1);
  });
});

describe("a direct message", () => {
  it("follows DUET_RUN_POLICY and the same approve permission as a channel", async () => {
    const channel = newChannel("D");
    const payload = directMessageEvent(slack, { channel, user: "U0BOB", text: "SAY: In a DM. <run>echo dm-proposal</run>" });
    expect((await postEvent(runOnly.url, payload, { secret: SIGNING_SECRET })).status).toBe(200);
    const proposal = structuredClone(await slack.waitFor(() => slack.ws.everything(channel).find((m) => m.bot_id === slack.id.botId && readable(m).includes("dm-proposal")), "the DM's answer"));
    expect(ran("echo dm-proposal")).toBe(0);
    const refusal = nextEphemeral(channel, "U0BOB");
    await pressRun(runOnly, channel, proposal, "U0BOB");
    expect((await refusal()).text).toMatch(/Only <@U0ALICE> may run or skip/);
    await pressRun(runOnly, channel, proposal, "U0ALICE");
    await shownRunBy(channel, proposal, "U0ALICE", "echo dm-proposal");
    expect(ran("echo dm-proposal")).toBe(1);
  });
});
