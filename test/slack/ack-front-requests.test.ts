import { describe, expect, it } from "vitest";
import { buttonClick, type FakeSlack, postCommand, signature, slashCommand, type SlackMessage } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { deliverHoldingThisThread } from "./ack-slack-process.ts";
import { answerTo, type BotHandle, mention, modelCallsFor, newChannel, readable, SIGNING_SECRET, slashAnswerIn, startSlackSetup } from "./harness.ts";

/**
 * Slash commands and clicks in HTTP mode: the ack front checks their
 * signature, hands them to bolt on the main thread and answers Slack with
 * what the handler's ack says, as bolt's receiver would. When no ack comes in
 * time (the main thread is held, or nothing handles the request) the front
 * answers an empty 200 at 2.5 s, inside Slack's 3 s, and the main thread still
 * handles the request when it can.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;

// Rooms propose commands for approval, so a mention's answer carries Run and Skip buttons to click.
startedForTests(() => startSlackSetup([{}], { vars: { DUET_RUN_POLICY: "approve" } }), (s) => ({ stack, slack, bots: [bot] } = s));

const FORM = "application/x-www-form-urlencoded";
/** The front's own answer when no ack comes (ANSWER_DEADLINE_MS). */
const FRONT_DEADLINE_MS = 2_500;
/** Slack's: past it, Slack shows the person an error. */
const SLACK_DEADLINE_MS = 3_000;

/** Posts a signed form body as Slack does; what came back, and how long it took. */
async function postForm(body: string, secret = SIGNING_SECRET) {
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = { "content-type": FORM, "x-slack-request-timestamp": String(timestamp), "x-slack-signature": signature(secret, timestamp, body) };
  const started = performance.now();
  const res = await fetch(bot.url, { method: "POST", headers, body });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get("content-type"), text, ms: performance.now() - started };
}

const commandBody = (channel: string, text: string) => {
  const fields = slashCommand(slack, { channel, text });
  return { fields, body: new URLSearchParams(fields).toString() };
};
const clickBody = (payload: Record<string, unknown>) => new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
const responsesTo = (fields: Record<string, string>) => slack.responses.filter((r) => fields.response_url.endsWith(r.id));

/** A mention whose answer proposes `cmd`: the message with its Run button, as posted. */
async function proposal(channel: string, cmd: string): Promise<SlackMessage> {
  const m = await mention(slack, bot, { channel, user: "U0BOB", text: `SAY: Proposing. <run>${cmd}</run>` });
  const [reply] = await answerTo(slack, m);
  return structuredClone(reply);
}
const runButton = (msg: SlackMessage) => (msg.blocks ?? []).find((b) => b.type === "actions")!.elements.find((e: { action_id: string }) => e.action_id === "duet_approval_run");

describe("slash commands through the ack front", () => {
  it("/duet ask: Slack gets the ⏳ working line as JSON at once, then the answer comes in the channel", async () => {
    const channel = newChannel();
    const { body } = commandBody(channel, "ask SAY: front-ask-answer");
    const acked = await postForm(body);
    expect(acked.status).toBe(200);
    expect(acked.contentType).toBe("application/json");
    expect(JSON.parse(acked.text)).toEqual({ response_type: "ephemeral", text: expect.stringMatching(/^:hourglass_flowing_sand: .*thinking/) });
    expect(acked.ms).toBeLessThan(FRONT_DEADLINE_MS);
    expect(readable(await slashAnswerIn(slack, channel))).toContain("front-ask-answer");
  });

  it("/duet help: an empty 200, and the help through the command's response_url", async () => {
    const { fields, body } = commandBody(newChannel(), "help");
    const acked = await postForm(body);
    expect(acked).toMatchObject({ status: 200, text: "", contentType: null });
    expect(acked.ms).toBeLessThan(FRONT_DEADLINE_MS);
    const help = await slack.waitFor(() => responsesTo(fields)[0]?.body, "the help");
    expect(readable(help as { text: string })).toContain("/duet ask");
  });

  it("refuses a command with a bad signature or a stale timestamp with 401: nothing of it runs", async () => {
    const channel = newChannel();
    const forged = commandBody(channel, "ask SAY: forged-command-marker");
    expect((await postForm(forged.body, "not-the-signing-secret")).status).toBe(401);
    const stale = commandBody(channel, "ask SAY: stale-command-marker");
    const fiveMinutesAgo = Math.floor(Date.now() / 1000) - 5 * 60 - 5;
    expect((await postCommand(bot.url, stale.fields, { secret: SIGNING_SECRET, timestamp: fiveMinutesAgo })).status).toBe(401);

    // A signed command in the same channel, answered: the refused ones had their chance to run.
    const signed = commandBody(channel, "ask SAY: signed-sentinel-command");
    expect((await postForm(signed.body)).status).toBe(200);
    expect(readable(await slashAnswerIn(slack, channel))).toContain("signed-sentinel-command");
    for (const marker of ["forged-command-marker", "stale-command-marker"]) expect(modelCallsFor(stack, marker)).toBe(0);
    expect([...responsesTo(forged.fields), ...responsesTo(stale.fields)]).toEqual([]);
    expect(slack.ws.channel(channel).filter((m) => m.bot_id && /forged-command|stale-command/.test(readable(m)))).toEqual([]);
  });

  it("answers Slack itself, an empty 200 inside Slack's 3 s, while the main thread is held; the command runs once it is free", async () => {
    const channel = newChannel();
    const { body } = commandBody(channel, "ask SAY: answered-after-the-hold");
    // Slack's process sends the command while this thread (the bot's main thread too) waits for it: the answer is the front's alone.
    const started = performance.now();
    const [outcome] = deliverHoldingThisThread([{ url: bot.url, body, contentType: FORM, secret: SIGNING_SECRET, atMs: 0 }]);
    const held = performance.now() - started;
    expect(outcome).toEqual({ index: 0, first: 200, retries: 0, acked: true, text: "" });
    expect(held).toBeGreaterThanOrEqual(FRONT_DEADLINE_MS);
    // No ⏳ line (its ack came after Slack's answer), but the command is not lost.
    expect(readable(await slashAnswerIn(slack, channel))).toContain("answered-after-the-hold");
    expect(modelCallsFor(stack, "answered-after-the-hold")).toBe(1);
  });
});

describe("clicks through the ack front", () => {
  it("acks a Run click with an empty 200 at once, and the command runs", async () => {
    const channel = newChannel();
    const msg = await proposal(channel, "echo clicked-through-front");
    const payload = buttonClick(slack, { channel, messageTs: msg.ts, actionId: "duet_approval_run", value: runButton(msg).value, user: "U0BOB" });
    const acked = await postForm(clickBody(payload));
    expect(acked).toMatchObject({ status: 200, text: "", contentType: null });
    expect(acked.ms).toBeLessThan(FRONT_DEADLINE_MS);
    await slack.waitFor(() => readable(slack.ws.find(channel, msg.ts)!).includes("<@U0BOB> ran `echo clicked-through-front`"), "the run shown");
  });

  it("answers a click nothing handles with an empty 200 at the front's deadline, where bolt's 404 would come after Slack gave up", async () => {
    const channel = newChannel();
    const msg = await proposal(channel, "echo never-clicked");
    const payload = buttonClick(slack, { channel, messageTs: msg.ts, actionId: "not_a_duet_button", user: "U0BOB" });
    const answered = await postForm(clickBody(payload));
    expect(answered).toMatchObject({ status: 200, text: "" });
    expect(answered.ms).toBeGreaterThanOrEqual(FRONT_DEADLINE_MS - 50);
    expect(answered.ms).toBeLessThan(SLACK_DEADLINE_MS);
  });

  it("refuses a forged click with 401: the proposal is left as it was", async () => {
    const channel = newChannel();
    const msg = await proposal(channel, "echo forged-click");
    const payload = buttonClick(slack, { channel, messageTs: msg.ts, actionId: "duet_approval_run", value: runButton(msg).value, user: "U0BOB" });
    expect((await postForm(clickBody(payload), "not-the-signing-secret")).status).toBe(401);
    // A signed click afterwards runs it once: the forged one did not.
    expect((await postForm(clickBody(payload))).status).toBe(200);
    await slack.waitFor(() => readable(slack.ws.find(channel, msg.ts)!).includes("<@U0BOB> ran `echo forged-click`"), "the run shown");
    expect(stack.executor!.calls.filter((c) => c.command === "echo forged-click")).toHaveLength(1);
  });
});
