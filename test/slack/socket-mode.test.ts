import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { buttonClick, envelope, type FakeSlack, mentionEvent, slashCommand } from "../fakes/slack/index.ts";
import { STOP_ACTION_ID } from "@duet/slack";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, botReplies, modelCallsFor, newChannel, readable, type SlackSetup, startBot, startSlackSetup } from "./harness.ts";

/**
 * Socket Mode: with SLACK_APP_TOKEN the bot opens a WebSocket from
 * `apps.connections.open` and needs no public URL. Envelopes are acked by
 * envelope_id, slash commands answer in the ack's payload and the response_url.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;

let setup: SlackSetup;

startedForTests(() => startSlackSetup([(slack) => ({ SLACK_APP_TOKEN: slack.id.appToken })]), (s) => ({ stack, slack, bots: [bot] } = setup = s));

describe("Socket Mode", () => {
  it("connects with the app token and listens on no port", () => {
    expect(bot.bot.mode).toBe("socket");
    expect(bot.bot.port).toBeUndefined();
    const open = slack.callsOf("apps.connections.open");
    expect(open.at(-1)).toMatchObject({ token: slack.id.appToken, ok: true });
    expect(slack.socket.open).toBe(1);
  });

  it("acks a mention envelope and answers in the thread; a redelivery is not answered again", async () => {
    const channel = newChannel();
    const payload = mentionEvent(slack, { channel, text: "SAY: over the socket <run>echo socket-ok</run>" });
    const ts = String(payload.event.ts);
    const ack = await slack.socket.deliver("events_api", payload);
    expect(ack.envelope_id).toMatch(/^env-/);
    const replies = await answerTo(slack, { channel, ts, threadTs: ts });
    expect(replies).toHaveLength(1);
    expect(readable(replies[0])).toMatch(/```\nsocket-ok\n```/);

    const again = await slack.socket.deliver("events_api", payload, { retryAttempt: 1, retryReason: "timeout" });
    expect(again.envelope_id).toBeDefined();
    const later = mentionEvent(slack, { channel, text: "SAY: socket-later" });
    await slack.socket.deliver("events_api", later);
    await answerTo(slack, { channel, ts: String(later.event.ts), threadTs: String(later.event.ts) });
    expect(modelCallsFor(stack, "over the socket")).toBe(1);
    expect(botReplies(slack, channel, ts)).toHaveLength(1);
  });

  it("acks /duet with a working line in the ack payload, then answers through the response_url", async () => {
    const channel = newChannel();
    const fields = slashCommand(slack, { channel, text: "run echo via-socket" });
    const ack = await slack.socket.deliver("slash_commands", fields);
    expect(ack.payload).toMatchObject({ response_type: "ephemeral", text: expect.stringContaining("Running") });
    const rid = fields.response_url.split("/").pop();
    const body = await slack.waitFor(() => slack.responses.find((r) => r.id === rid)?.body, "the response_url answer");
    expect(body.response_type).toBe("in_channel");
    expect(readable(body as { text: string })).toMatch(/```\nvia-socket\n```/);
  });

  it("acks a malformed envelope and keeps working", async () => {
    const ack = await slack.socket.deliver("events_api", envelope(slack, { type: "app_mention", channel: 7, ts: {} }));
    expect(ack.envelope_id).toBeDefined();
    const channel = newChannel();
    const payload = mentionEvent(slack, { channel, text: "SAY: still-alive" });
    await slack.socket.deliver("events_api", payload);
    const replies = await answerTo(slack, { channel, ts: String(payload.event.ts), threadTs: String(payload.event.ts) });
    expect(readable(replies[0])).toContain("still-alive");
  });

  it("takes a Run click as an interactive envelope under the approve policy", async () => {
    const channel = newChannel();
    const set = slashCommand(slack, { channel, text: "policy approve" });
    await slack.socket.deliver("slash_commands", set);
    await slack.waitFor(() => slack.responses.find((r) => r.id === set.response_url.split("/").pop()), "the policy set");
    const payload = mentionEvent(slack, { channel, text: "SAY: Proposing <run>echo socket-approved</run>" });
    const ts = String(payload.event.ts);
    await slack.socket.deliver("events_api", payload);
    const [proposal] = await answerTo(slack, { channel, ts, threadTs: ts });
    const value = proposal.blocks!.find((b) => b.type === "actions")!.elements[0].value;
    expect(stack.executor!.calls.some((c) => c.command === "echo socket-approved")).toBe(false);
    const ack = await slack.socket.deliver("interactive", buttonClick(slack, { channel, messageTs: proposal.ts, actionId: "duet_approval_run", value }));
    expect(ack.envelope_id).toBeDefined();
    await slack.waitFor(() => readable(slack.ws.find(channel, proposal.ts)!).includes("<@U0ALICE> ran `echo socket-approved`"), "the decision shown");
    expect(stack.executor!.calls.filter((c) => c.command === "echo socket-approved")).toHaveLength(1);
  });

  it("reconnects when Slack asks it to, and stops cleanly", async () => {
    const before = slack.socket.connections;
    slack.socket.sendDisconnect();
    await slack.waitFor(() => slack.socket.connections > before && slack.socket.open === 1, "a new connection", 30_000);
    const channel = newChannel();
    const payload = mentionEvent(slack, { channel, text: "SAY: after-reconnect" });
    await slack.socket.deliver("events_api", payload);
    const replies = await answerTo(slack, { channel, ts: String(payload.event.ts), threadTs: String(payload.event.ts) });
    expect(readable(replies[0])).toContain("after-reconnect");

    await bot.stop();
    await slack.waitFor(() => slack.socket.open === 0, "the socket to close");
    // The setup stops it after the file's tests, as it stops the bot it started.
    bot = setup.bots[0] = await startBot(slack, stack, { SLACK_APP_TOKEN: slack.id.appToken });
    expect(slack.socket.open).toBe(1);
  });
});

describe("Socket Mode start-up", () => {
  it("fails with one clear line when Slack refuses the app token", async () => {
    await expect(startBot(slack, stack, { SLACK_APP_TOKEN: "xapp-1-not-the-right-token" })).rejects.toThrow(/invalid_auth/);
  });

  it("takes a Stop click over the socket and stops the answer", async () => {
    const channel = newChannel();
    const payload = mentionEvent(slack, { channel, text: "HANG:socket-stop CHUNK:10 SAY: Working on it over the socket" });
    const ts = String(payload.event.ts);
    await slack.socket.deliver("events_api", payload);
    const live = await slack.waitFor(() => botReplies(slack, channel, ts).find((r) => r.stream), "the live answer");
    const click = buttonClick(slack, { channel, messageTs: live.ts, actionId: STOP_ACTION_ID, value: `slack-${slack.id.teamId}-${channel}` });
    const ack = await slack.socket.deliver("interactive", click);
    expect(ack.envelope_id).toMatch(/^env-/);
    const [answer] = await answerTo(slack, { channel, ts, threadTs: ts });
    expect(readable(answer)).toContain("Stopped before it finished");
  });
});
