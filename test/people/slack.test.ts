import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { FakeSlack } from "../fakes/slack/index.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, mention, newChannel, startSlackSetup } from "../slack/harness.ts";

/** Who is talking, through the real bolt app, the fake Slack (users.info) and the real Worker. */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;

startedForTests(() => startSlackSetup(), (s) => ({ stack, slack, bots: [bot] } = s));

const lastAsked = (marker: string) =>
  stack.model.calls.filter((c) => c.messages[c.messages.length - 1]?.content.includes(marker)).map((c) => c.messages.filter((m) => m.role === "user").map((m) => m.content));

describe("people on Slack", () => {
  it("the model sees each question under its asker's display name, and a mention of a teammate as their name", async () => {
    slack.ws.people.set("U0ADA", "Ada");
    slack.ws.people.set("U0BOB", "Bob the Builder");
    const channel = newChannel();
    const first = `first-${channel}`;
    await answerTo(slack, await mention(slack, bot, { channel, text: `SAY: noted ${first}`, user: "U0ADA" }));
    const second = `second-${channel}`;
    await answerTo(slack, await mention(slack, bot, { channel, text: `SAY: ok ${second} what did <@U0ADA> ask?`, user: "U0BOB" }));
    const [asked] = lastAsked(second);
    expect(asked[0]).toBe(`[from "Ada"]\nSAY: noted ${first}`);
    expect(asked[asked.length - 1]).toBe(`[from "Bob the Builder"]\nSAY: ok ${second} what did @Ada ask?`);
    const history = await stack.client.history(`slack-${slack.id.teamId}-${channel}`);
    expect(history.messages.filter((m) => m.role === "user").map((m) => m.userName)).toEqual(["Ada", "Bob the Builder"]);
    // Names are cached: Ada was looked up once though she was named twice.
    expect(slack.ws.lookups.filter((u) => u === "U0ADA")).toHaveLength(1);
  });
});
