import { describe, expect, it, onTestFinished } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { FakeSlack } from "../fakes/slack/index.ts";
import type { Stack } from "../helpers/stack.ts";
import { startWorkerTap } from "../helpers/worker-tap.ts";
import { answerTo, botReplies, mention, newChannel, readable, startBot, startSlackSetup } from "./harness.ts";

/**
 * The 👀 is the first thing people see, and it does not wait for the Worker:
 * a question's claim is its ask, and the 👀 goes out beside it. A tap between
 * the bot and the Worker holds every request until the 👀 is there.
 */

let stack: Stack;
let slack: FakeSlack;

startedForTests(() => startSlackSetup([]), (s) => ({ stack, slack } = s));

describe("first feedback on a mention", () => {
  it("shows 👀 while the Worker has not answered the ask (its claim) yet, then answers once it does", async () => {
    const tap = await startWorkerTap(stack.workerUrl);
    onTestFinished(() => tap.close());
    tap.hold((c) => c.path.startsWith("/api/"));
    const bot = await startBot(slack, { workerUrl: tap.url, token: stack.token });
    onTestFinished(() => bot.stop());
    const channel = newChannel();
    const m = await mention(slack, bot, { channel, text: "SAY: answered-after-the-eyes" });
    const asked = () => tap.calls.find((c) => c.path.endsWith("/message") && (c.body as { idempotencyKey?: string })?.idempotencyKey === m.eventId);
    // Both, with the ask held at the tap: the 👀 did not wait for the Worker's answer.
    // Both, with the ask held at the tap: the 👀 did not wait for the Worker's answer.
    await expect.poll(asked, { timeout: 20_000, interval: 20 }).toBeTruthy();
    await slack.waitFor(() => slack.ws.reactionsOn(channel, m.ts).includes("eyes"), "the 👀 beside the held ask");
    expect(asked()?.status).toBe(0);
    expect(tap.calls.filter((c) => c.path.startsWith("/api/claims/"))).toEqual([]);
    expect(botReplies(slack, channel, m.ts)).toEqual([]);

    tap.release();
    const replies = await answerTo(slack, m);
    expect(replies.map(readable)).toEqual([expect.stringContaining("answered-after-the-eyes")]);
    expect(slack.ws.reactionsOn(channel, m.ts)).toEqual(["eyes", "white_check_mark"]);
  });
});
