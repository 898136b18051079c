import { LogLevel, type SlackBotOptions } from "@duet/slack";
import { describe, expect, it, onTestFinished } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { envelope, type FakeSlack, mentionEvent, postEvent, postSigned, signature } from "../fakes/slack/index.ts";
import { quietPort } from "../helpers/ports.ts";
import { quickRetrySleep } from "../helpers/quick-retries.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, botReplies, mention, modelCallsFor, newChannel, readable, SIGNING_SECRET, startBot, startSlackSetup } from "./harness.ts";

/**
 * What goes wrong, and what people see then: forged or stale requests are
 * refused before anything runs, malformed events are shrugged off, a broken
 * Worker gives a helpful line in the thread, and Slack's 429s are waited out.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;

startedForTests(() => startSlackSetup(), (s) => ({ stack, slack, bots: [bot] } = s));

/** A mention answered afterwards proves the bot is alive and that earlier requests had their chance to run. */
async function answeredSentinel(channel: string, marker: string): Promise<void> {
  const m = await mention(slack, bot, { channel, text: `SAY: ${marker}` });
  const replies = await answerTo(slack, m);
  expect(readable(replies[0])).toContain(marker);
}

describe("request signing", () => {
  it("refuses a bad signature, a stale timestamp and missing headers with 401, and runs nothing", async () => {
    const channel = newChannel();
    const forged = (marker: string) => mentionEvent(slack, { channel, text: `SAY: ${marker}` });
    const fiveMinutesAgo = Math.floor(Date.now() / 1000) - 5 * 60 - 5;
    const attempts = [
      await postEvent(bot.url, forged("forged-sig"), { secret: "not-the-secret" }),
      await postEvent(bot.url, forged("stale-ts"), { secret: SIGNING_SECRET, timestamp: fiveMinutesAgo }),
      await postEvent(bot.url, forged("no-sig"), { secret: SIGNING_SECRET, omit: ["x-slack-signature"] }),
      await postEvent(bot.url, forged("no-ts"), { secret: SIGNING_SECRET, omit: ["x-slack-request-timestamp"] }),
      await postEvent(bot.url, forged("wrong-version"), { secret: SIGNING_SECRET, signature: "v1=abc" }),
    ];
    expect(attempts.map((a) => a.status)).toEqual([401, 401, 401, 401, 401]);
    await answeredSentinel(channel, "signing-sentinel");
    for (const marker of ["forged-sig", "stale-ts", "no-sig", "no-ts", "wrong-version"]) expect(modelCallsFor(stack, marker)).toBe(0);
    // Only the sentinel got a reaction or a reply.
    expect(slack.callsOf("reactions.add").filter((c) => c.args.channel === channel)).toHaveLength(2);
    expect(slack.ws.everything(channel).filter((msg) => msg.bot_id)).toHaveLength(1);
    const room = await stack.client.history(`slack-${slack.id.teamId}-${channel}`);
    expect(room.messages.map((x) => x.text)).toEqual(["SAY: signing-sentinel", "signing-sentinel"]);
  });

  it("answers Slack's url_verification challenge when signed", async () => {
    const body = JSON.stringify({ token: "x", challenge: "chal-123", type: "url_verification" });
    const ok = await postSigned(bot.url, body, "application/json", { secret: SIGNING_SECRET });
    expect(ok).toEqual({ status: 200, text: JSON.stringify({ challenge: "chal-123" }) });
    const ts = Math.floor(Date.now() / 1000);
    const bad = await postSigned(bot.url, body, "application/json", { secret: SIGNING_SECRET, signature: signature("nope", ts, body), timestamp: ts });
    expect(bad.status).toBe(401);
  });
});

describe("start-up", () => {
  it("stops with one clear line when Slack refuses the bot token", async () => {
    await expect(startBot(slack, stack, { SLACK_BOT_TOKEN: "xoxb-not-the-right-token" })).rejects.toThrow(
      /^Slack did not accept SLACK_BOT_TOKEN \(invalid_auth\)$/,
    );
  });
});

/** A logger that keeps what the bot told the operator (warnings and errors), as bolt's Logger. */
function recordingLogger() {
  const lines: string[] = [];
  let level = LogLevel.INFO;
  const keep = (...m: unknown[]) => void lines.push(m.map(String).join(" "));
  const logger: NonNullable<SlackBotOptions["logger"]> = { debug: () => {}, info: () => {}, warn: keep, error: keep, setLevel: (l) => void (level = l), getLevel: () => level, setName: () => {} };
  return { logger, lines };
}

describe("malformed events", () => {
  it("are acknowledged and logged, and the bot keeps answering", async () => {
    const { logger, lines } = recordingLogger();
    const bot = await startBot(slack, stack, {}, { logger });
    onTestFinished(() => bot.stop());
    const channel = newChannel();
    const noChannel = envelope(slack, { type: "app_mention", user: "U0ALICE", text: "<@U0DUETBOT> SAY: malformed-marker" });
    expect((await postEvent(bot.url, noChannel, { secret: SIGNING_SECRET })).status).toBe(200);
    const weird = envelope(slack, { type: "app_mention", channel: 42, ts: ["x"], text: { nested: true } });
    expect((await postEvent(bot.url, weird, { secret: SIGNING_SECRET })).status).toBe(200);
    // Not JSON at all: bolt answers 400 (the body cannot be read), and nothing breaks.
    const garbage = await postSigned(bot.url, "{not json", "application/json", { secret: SIGNING_SECRET });
    expect(garbage.status).toBe(400);
    const m = await mention(slack, bot, { channel, text: "SAY: malformed-sentinel" });
    expect(readable((await answerTo(slack, m))[0])).toContain("malformed-sentinel");
    expect(modelCallsFor(stack, "malformed-marker")).toBe(0);
    // The operator is told of each of the three, in order, and of nothing else.
    expect(lines).toEqual([
      expect.stringMatching(/^Ignored a malformed app_mention: /),
      expect.stringMatching(/^Acknowledged an event bolt could not process: /),
      expect.stringMatching(/^Malformed request body: /),
    ]);
  });
});

describe("when the Worker fails", () => {
  it("says in the thread that the back end cannot be reached, and marks ⚠️", async () => {
    // The bot retries an unreachable Worker before it gives up (its waits shortened); then it says so.
    const down = await startBot(slack, { workerUrl: `http://127.0.0.1:${await quietPort()}`, token: stack.token }, {}, { workerRetrySleep: quickRetrySleep });
    try {
      const channel = newChannel();
      const m = await mention(slack, down, { channel, text: "SAY: unreachable" });
      const [reply] = await answerTo(slack, m);
      expect(readable(reply)).toMatch(/can't be reached right now\. Please try again in a minute/);
      expect(slack.ws.reactionsOn(channel, m.ts)).toEqual(["eyes", "warning"]);
    } finally {
      await down.stop();
    }
  });

  it("explains a message longer than Duet accepts, in the words every front end uses, before the Worker is asked", async () => {
    const channel = newChannel();
    const m = await mention(slack, bot, { channel, text: `SAY: ${"x".repeat(8100)}` });
    const [reply] = await answerTo(slack, m);
    expect(readable(reply)).toMatch(/That question is 8,105 characters long; Duet accepts at most 8,000\. Please shorten it\./);
    expect(slack.ws.reactionsOn(channel, m.ts)).toContain("warning");
  });

  it("explains a 5xx: the model failed", async () => {
    const channel = newChannel();
    const m = await mention(slack, bot, { channel, text: "FAIL:500" });
    const [reply] = await answerTo(slack, m);
    expect(readable(reply)).toMatch(/The AI model failed to answer .*Please try again in a moment/);
    expect(slack.ws.reactionsOn(channel, m.ts)).toContain("warning");
  });

  it("follows a Worker slower than the bot waits back into the turn it took, and posts its one answer, never 'try again'", async () => {
    // Posted whole, the turn's stream is still followed: silent past the bot's deadline, it is joined again, as a live one is.
    const quick = await startBot(slack, stack, { DUET_STREAMING: "off" }, { workerTimeoutMs: 500 });
    try {
      const channel = newChannel();
      const m = await mention(slack, quick, { channel, text: "SLOW:3000 SAY: slow but answered" });
      const replies = await answerTo(slack, m);
      expect(replies).toHaveLength(1);
      expect(readable(replies[0])).toContain("slow but answered");
      expect(readable(replies[0])).not.toMatch(/try again/i);
    } finally {
      await quick.stop();
    }
  });
});

describe("Slack rate limits", () => {
  it("waits out a 429 for its Retry-After, then posts the answer once", async () => {
    const channel = newChannel();
    // The answer's first call: it starts a stream (the answer drips for a few seconds, words enough
    // to show early, so it is still going when its first message's turn comes, not posted whole).
    slack.rateLimit("chat.startStream", 1, 1);
    const m = await mention(slack, bot, { channel, text: `CHUNK:12 DRIP:300 SAY: after-the-429 ${"and more words ".repeat(10)}` });
    const replies = await answerTo(slack, m);
    expect(replies).toHaveLength(1);
    expect(readable(replies[0])).toContain("after-the-429");
    // The retry starts the stream, or posts the whole answer if it arrived meanwhile.
    const posts = slack.calls.filter((c) => (c.method === "chat.startStream" || c.method === "chat.postMessage") && c.args.channel === channel);
    expect(posts.map((p) => p.status)).toEqual([429, 200]);
    // The retry came no sooner than Retry-After (1 s) allowed.
    expect(posts[1].at - posts[0].at).toBeGreaterThanOrEqual(1000);
    expect(botReplies(slack, channel, m.ts)).toHaveLength(1);
  });
});
