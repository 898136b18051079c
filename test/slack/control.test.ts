import { roomId } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { buttonClick, postInteraction, type FakeSlack, type SlackMessage } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, bodyText, click, mention, newChannel, readable, SIGNING_SECRET, slash, slashAnswerIn, slashResponse, startSlackSetup } from "./harness.ts";

/**
 * Control end to end: the real bolt app against the fake Slack and a real
 * Worker. Only U0ALICE may run directly and set the policy; U0OPS1 and the
 * members of the user group S0OPS (U0CAROL) may approve; everyone may ask.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;

const ENV = { SLACK_ALLOW_RUN: "U0ALICE", SLACK_ALLOW_POLICY: "U0ALICE", SLACK_ALLOW_APPROVE: "U0OPS1, S0OPS", SLACK_ALLOW_RESET: "U0ALICE" };

startedForTests(
  () => startSlackSetup([ENV]),
  (s) => {
    ({ stack, slack, bots: [bot] } = s);
    slack.ws.usergroups.set("S0OPS", ["U0CAROL"]);
  },
);

const roomOf = (channel: string) => `slack-${slack.id.teamId}-${channel}`;
const ran = (cmd: string) => stack.executor!.calls.filter((c) => c.command === cmd).length;


/** What `user` alone sees in `channel` from now on, once it arrives. */
function nextEphemeral(channel: string, user: string) {
  const before = slack.ws.ephemeral.length;
  return () => slack.waitFor(() => slack.ws.ephemeral.slice(before).find((e) => e.channel === channel && e.user === user), `an ephemeral message for ${user}`);
}

async function setApprove(channel: string): Promise<void> {
  const { fields } = await slash(slack, bot, channel, "policy approve", "U0ALICE");
  expect(bodyText(await slashResponse(slack, fields))).toContain("<@U0ALICE> set the run policy to *approve*");
}

/** Under approve: a mention whose answer proposes `cmds`; returns the proposal message as posted. */
async function propose(channel: string, cmds: string[], user = "U0BOB"): Promise<SlackMessage> {
  const m = await mention(slack, bot, { channel, user, text: `SAY: Proposing. ${cmds.map((c) => `<run>${c}</run>`).join(" ")}` });
  const [reply] = await answerTo(slack, m);
  // As first posted: the fake edits its own copy in place.
  return structuredClone(reply);
}

const actionsOf = (msg: SlackMessage) => (msg.blocks ?? []).filter((b) => b.type === "actions");
const buttonValue = (msg: SlackMessage, i: number, action: "run" | "skip") =>
  actionsOf(msg)[i].elements.find((e: { action_id: string }) => e.action_id === `duet_approval_${action}`).value as string;

async function press(channel: string, msg: SlackMessage, i: number, action: "run" | "skip", user: string, edit?: (p: Record<string, any>) => void) {
  const delivery = await click(slack, bot, { channel, messageTs: msg.ts, actionId: `duet_approval_${action}`, value: buttonValue(msg, i, action), user }, edit);
  expect(delivery.status).toBe(200);
}

describe("under the approve run policy", () => {
  it("runs nothing until an allowed person clicks Run; shows who ran or skipped what; the output follows in the thread", async () => {
    const channel = newChannel();
    await setApprove(channel);
    const proposal = await propose(channel, ["echo approved-one", "echo skipped-two"]);
    expect(actionsOf(proposal)).toHaveLength(2);
    expect(readable(proposal)).toContain("`echo approved-one`");
    // The answer is posted, so the turn is over: nothing ran.
    expect(ran("echo approved-one") + ran("echo skipped-two")).toBe(0);

    // Not allowed: told privately why, and nothing changes.
    const refusal = nextEphemeral(channel, "U0MALLORY");
    await press(channel, proposal, 0, "run", "U0MALLORY");
    expect((await refusal()).text).toMatch(/Only <@U0OPS1> or members of <!subteam\^S0OPS> may run or skip/);
    expect(ran("echo approved-one")).toBe(0);
    expect(slack.ws.find(channel, proposal.ts)!.edits).toBe(proposal.edits);

    // A member of the allowed user group runs the first.
    await press(channel, proposal, 0, "run", "U0CAROL");
    const output = await slack.waitFor(() => slack.ws.thread(channel, proposal.thread_ts!).find((m) => readable(m).includes("approved-one") && m.ts !== proposal.ts), "the output in the thread");
    expect(readable(output)).toMatch(/```\napproved-one\n```/);
    expect(ran("echo approved-one")).toBe(1);
    const afterRun = slack.ws.find(channel, proposal.ts)!;
    expect(readable(afterRun)).toContain("<@U0CAROL> ran `echo approved-one`");
    expect(actionsOf(afterRun)).toHaveLength(1);

    // An allowed person skips the second: it never runs.
    await press(channel, proposal, 1, "skip", "U0OPS1");
    await slack.waitFor(() => readable(slack.ws.find(channel, proposal.ts)!).includes("<@U0OPS1> skipped `echo skipped-two`"), "the skip shown");
    const decided = slack.ws.find(channel, proposal.ts)!;
    expect(readable(decided)).toContain("<@U0CAROL> ran `echo approved-one`");
    expect(actionsOf(decided)).toHaveLength(0);
    expect(ran("echo skipped-two")).toBe(0);

    // A repeated click changes nothing and is answered privately.
    const edits = decided.edits;
    const repeat = nextEphemeral(channel, "U0OPS1");
    await press(channel, proposal, 0, "run", "U0OPS1");
    expect((await repeat()).text).toMatch(/already decided/);
    expect(ran("echo approved-one")).toBe(1);
    expect(slack.ws.find(channel, proposal.ts)!.edits).toBe(edits);

    // The model's next turn knows what ran and what was skipped.
    const history = (await stack.client.history(roomOf(channel))).messages.map((m) => m.text).join("\n");
    expect(history).toContain("approved-one");
    expect(history).toMatch(/skipped/i);
  });

  it("puts Run and Skip on a /duet ask answer too; the output follows in a thread under it", async () => {
    const channel = newChannel();
    await setApprove(channel);
    await slash(slack, bot, channel, "ask SAY: Here. <run>echo from-slash-ask</run>", "U0BOB");
    const answer = structuredClone(await slashAnswerIn(slack, channel));
    expect(actionsOf(answer)).toHaveLength(1);
    expect(readable(answer)).toContain("<@U0BOB> asked");
    await press(channel, answer, 0, "run", "U0OPS1");
    const output = await slack.waitFor(() => slack.ws.thread(channel, answer.ts).find((m) => readable(m).includes("from-slash-ask")), "the output under the answer");
    expect(readable(output)).toMatch(/```\nfrom-slash-ask\n```/);
    expect(readable(slack.ws.find(channel, answer.ts)!)).toContain("<@U0OPS1> ran `echo from-slash-ask`");
    expect(ran("echo from-slash-ask")).toBe(1);
  });

  it("does nothing for a click from another workspace or for another room's approval", async () => {
    const channel = newChannel();
    const other = newChannel();
    await setApprove(channel);
    await setApprove(other);
    const proposal = await propose(channel, ["echo not-from-here"]);
    const elsewhere = await propose(other, ["echo other-room"]);
    // Forged: the same signed click, from another workspace; and this channel's click naming the other room's approval.
    await press(channel, proposal, 0, "run", "U0OPS1", (p) => {
      p.team.id = "T0OTHER";
      p.user.team_id = "T0OTHER";
    });
    await press(channel, proposal, 0, "run", "U0OPS1", (p) => {
      p.actions[0].value = buttonValue(elsewhere, 0, "run");
    });
    // Barrier: a real Skip, sent after both were acked, is decided and shown.
    await press(channel, proposal, 0, "skip", "U0OPS1");
    await slack.waitFor(() => readable(slack.ws.find(channel, proposal.ts)!).includes("skipped `echo not-from-here`"), "the real skip");
    expect(ran("echo not-from-here") + ran("echo other-room")).toBe(0);
    expect(slack.ws.find(other, elsewhere.ts)!.edits).toBe(elsewhere.edits);
    expect(slack.ws.ephemeral.filter((e) => e.channel === channel && e.user === "U0OPS1")).toEqual([]);
  });

  it("refuses a click that is not signed by Slack, or signed more than 5 minutes ago", async () => {
    const channel = newChannel();
    await setApprove(channel);
    const proposal = await propose(channel, ["echo unsigned"]);
    const payload = () => buttonClick(slack, { channel, messageTs: proposal.ts, actionId: "duet_approval_run", value: buttonValue(proposal, 0, "run"), user: "U0OPS1" });
    const forged = await postInteraction(bot.url, payload(), { secret: "not-the-signing-secret" });
    const stale = await postInteraction(bot.url, payload(), { secret: SIGNING_SECRET, timestamp: Math.floor(Date.now() / 1000) - 6 * 60 });
    const unsigned = await postInteraction(bot.url, payload(), { secret: SIGNING_SECRET, omit: ["x-slack-signature"] });
    expect([forged.status, stale.status, unsigned.status]).toEqual([401, 401, 401]);
    // Barrier: a signed Skip is decided, so none of the three ran it first.
    await press(channel, proposal, 0, "skip", "U0OPS1");
    await slack.waitFor(() => readable(slack.ws.find(channel, proposal.ts)!).includes("<@U0OPS1> skipped `echo unsigned`"), "the signed skip");
    expect(ran("echo unsigned")).toBe(0);
  });

  it("ignores a button value it never sent (malformed, oversized, hostile) and answers the next click", async () => {
    const channel = newChannel();
    await setApprove(channel);
    const proposal = await propose(channel, ["echo after-junk"]);
    for (const value of ["", "not json", JSON.stringify({ room: roomOf(channel) }), JSON.stringify({ room: roomOf(channel), id: "../../sandbox/exec" }), "x".repeat(5000), JSON.stringify({ room: roomOf(channel), id: "a".repeat(65) })]) {
      await press(channel, proposal, 0, "run", "U0OPS1", (p) => {
        p.actions[0].value = value;
      });
    }
    await press(channel, proposal, 0, "run", "U0OPS1");
    await slack.waitFor(() => readable(slack.ws.find(channel, proposal.ts)!).includes("<@U0OPS1> ran `echo after-junk`"), "the real run");
    expect(ran("echo after-junk")).toBe(1);
    expect(slack.ws.find(channel, proposal.ts)!.edits).toBe(proposal.edits + 1);
  });
});

describe("a pending approval and a restart", () => {
  it("survives a restart of the Worker: Run after it runs the command", async () => {
    const channel = newChannel();
    await setApprove(channel);
    const proposal = await propose(channel, ["echo after-restart"]);
    await stack.restartWorker();
    await press(channel, proposal, 0, "run", "U0OPS1");
    await slack.waitFor(() => readable(slack.ws.find(channel, proposal.ts)!).includes("<@U0OPS1> ran `echo after-restart`"), "the run after the restart", 60_000);
    expect(ran("echo after-restart")).toBe(1);
  });
});

describe("who may", () => {
  it("refuses /duet run and /duet policy to someone not allowed, privately, and runs them for someone allowed", async () => {
    const channel = newChannel();
    const refusedRun = await slash(slack, bot, channel, "run echo refused-run", "U0MALLORY");
    expect(refusedRun.delivery.text).not.toContain("Running");
    const body = await slashResponse(slack, refusedRun.fields);
    expect(body.response_type).toBe("ephemeral");
    expect(bodyText(body)).toMatch(/Only <@U0ALICE> may run commands with `\/duet run` here\. You can still ask Duet questions\./);
    const refusedPolicy = await slash(slack, bot, channel, "policy approve", "U0MALLORY");
    expect(bodyText(await slashResponse(slack, refusedPolicy.fields))).toMatch(/Only <@U0ALICE> may change the run policy here/);
    expect((await stack.client.policy(roomOf(channel))).runPolicy).toBe("auto");

    const allowed = await slash(slack, bot, channel, "run echo allowed-run", "U0ALICE");
    expect(allowed.delivery.text).toContain("Running in this channel's sandbox");
    expect(bodyText(await slashResponse(slack, allowed.fields))).toMatch(/```\nallowed-run\n```/);
    expect(ran("echo refused-run")).toBe(0);
    expect(ran("echo allowed-run")).toBe(1);
    // Anyone may still ask (auto runs at once) and see the policy.
    const m = await mention(slack, bot, { channel, user: "U0MALLORY", text: "SAY: Sure. <run>echo asked-by-anyone</run>" });
    await answerTo(slack, m);
    expect(ran("echo asked-by-anyone")).toBe(1);
    const shown = await slash(slack, bot, channel, "policy", "U0MALLORY");
    const policyBody = await slashResponse(slack, shown.fields);
    expect(policyBody.response_type).toBe("ephemeral");
    expect(bodyText(policyBody)).toContain("The run policy here is *auto*");
  });

  it("answers bad /duet policy input with its usage, privately, changing nothing", async () => {
    const channel = newChannel();
    for (const text of ["policy yolo", "policy auto approve", `policy ${"approve".repeat(800)}`, "policy <!channel> `rm -rf /`"]) {
      const { fields } = await slash(slack, bot, channel, text, "U0ALICE");
      const body = await slashResponse(slack, fields);
      expect(body.response_type).toBe("ephemeral");
      expect(bodyText(body)).toMatch(/takes `auto`/);
      expect(bodyText(body)).not.toContain("<!channel>");
    }
    expect((await stack.client.policy(roomOf(channel))).runPolicy).toBe("auto");
  });
});

describe("/duet audit and help", () => {
  it("lists direct, automatic, approved and skipped commands and policy changes with the right people, to the caller only", async () => {
    const channel = newChannel();
    await slash(slack, bot, channel, "run echo audit-direct", "U0ALICE").then((s) => slashResponse(slack, s.fields));
    await answerTo(slack, await mention(slack, bot, { channel, user: "U0DAVE", text: "SAY: ok <run>echo audit-auto</run>" }));
    await setApprove(channel);
    const proposal = await propose(channel, ["echo audit-approved", "echo audit-skipped"], "U0ERIN");
    await press(channel, proposal, 0, "run", "U0CAROL");
    await slack.waitFor(() => actionsOf(slack.ws.find(channel, proposal.ts)!).length === 1, "the run decided");
    await press(channel, proposal, 1, "skip", "U0OPS1");
    await slack.waitFor(() => actionsOf(slack.ws.find(channel, proposal.ts)!).length === 0, "both decided");

    const { fields } = await slash(slack, bot, channel, "audit", "U0MALLORY");
    const body = await slashResponse(slack, fields);
    expect(body.response_type).toBe("ephemeral");
    const lines = bodyText(body).split("\n").filter((l) => l.startsWith("•"));
    expect(lines).toEqual([
      expect.stringMatching(/<@U0ALICE> ran `echo audit-direct` \(exit 0, \d+ ms\)$/),
      expect.stringMatching(/`echo audit-auto` ran automatically, asked by <@U0DAVE> \(exit 0/),
      expect.stringMatching(/<@U0ALICE> set the run policy to approve$/),
      expect.stringMatching(/`echo audit-approved` run by <@U0CAROL>, proposed for <@U0ERIN> \(exit 0/),
      expect.stringMatching(/`echo audit-skipped` skipped by <@U0OPS1>, proposed for <@U0ERIN>$/),
    ]);
  });

  it("says whether the sandbox has network and the room's policy", async () => {
    const channel = newChannel();
    await setApprove(channel);
    const { fields } = await slash(slack, bot, channel, "help", "U0MALLORY");
    const text = bodyText(await slashResponse(slack, fields));
    expect(text).toContain("no network access");
    expect(text).toContain("Run policy here: approve");
    for (const sub of ["/duet policy", "/duet audit"]) expect(text).toContain(sub);
  });
});

describe("an approval that waited too long", () => {
  let s: Awaited<ReturnType<typeof startSlackSetup>>;
  startedForTests(() => startSlackSetup([ENV], { vars: { DUET_APPROVAL_TTL_MS: "1000" } }), (started) => (s = started));

  it("is answered privately as expired and never runs", async () => {
    const channel = newChannel();
    const [b] = s.bots;
    const set = await slash(s.slack, b, channel, "policy approve", "U0ALICE");
    await s.slack.waitFor(() => s.slack.responses.some((r) => r.id === set.fields.response_url.split("/").pop()), "the policy set");
    const m = await mention(s.slack, b, { channel, user: "U0BOB", text: "SAY: Later. <run>echo too-late</run>" });
    const [proposal] = await answerTo(s.slack, m);
    // The Worker's own word that the approval expired (its audit notices it when read), not a wait.
    const room = roomId("slack", s.slack.id.teamId, channel);
    await expect.poll(async () => (await s.stack.client.audit(room)).entries.some((e) => e.kind === "expired"), { timeout: 10_000, interval: 100 }).toBe(true);
    const value = proposal.blocks!.find((x) => x.type === "actions")!.elements[0].value;
    const before = s.slack.ws.ephemeral.length;
    await click(s.slack, b, { channel, messageTs: proposal.ts, actionId: "duet_approval_run", value, user: "U0OPS1" });
    const told = await s.slack.waitFor(() => s.slack.ws.ephemeral.slice(before).find((e) => e.user === "U0OPS1"), "the private answer");
    expect(told.text).toMatch(/expired; nothing was run/);
    expect(s.stack.executor!.calls.some((c) => c.command === "echo too-late")).toBe(false);
    expect(s.slack.ws.find(channel, proposal.ts)!.edits).toBe(proposal.edits);
  });
});
