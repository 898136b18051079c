import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeSlack, startFakeSlack } from "../fakes/slack/index.ts";
import { type Stack, startStack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, mention, modelCallsFor, newChannel, readable, startBot } from "./harness.ts";

/**
 * The Worker call does not wait behind Slack's answer to the 👀 reaction: with
 * real Slack that answer is a network round trip on every turn. Here Slack holds
 * the reaction back (a 429 with Retry-After), and the question reaches the model
 * while the 👀 is still waiting.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;

beforeAll(async () => {
  stack = await startStack();
  slack = await startFakeSlack();
  bot = await startBot(slack, stack);
});

afterAll(async () => {
  await bot?.stop();
  await slack?.close();
  await stack?.stop();
});

describe("a mention while Slack is slow to take the reaction", () => {
  it("is already with the model before the 👀 lands, and is answered once with 👀 and ✅", async () => {
    const channel = newChannel();
    // The bot waits out Retry-After exactly; 4 s is far longer than a turn with the instant model.
    slack.rateLimit("reactions.add", 1, 4);
    const m = await mention(slack, bot, { channel, text: "SAY: fast-path-marker" });
    await expect.poll(() => modelCallsFor(stack, "fast-path-marker"), { timeout: 3_000, interval: 20 }).toBe(1);
    expect(slack.ws.reactionsOn(channel, m.ts)).toEqual([]);

    const replies = await answerTo(slack, m);
    expect(replies).toHaveLength(1);
    expect(readable(replies[0])).toContain("fast-path-marker");
    expect(slack.ws.reactionsOn(channel, m.ts)).toEqual(["eyes", "white_check_mark"]);
    expect(modelCallsFor(stack, "fast-path-marker")).toBe(1);
  });
});
