import { describe, expect, it } from "vitest";
import { blockTexts, type FakeSlack } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, mention, newChannel, readable, slash, slashResponse, startSlackSetup } from "./harness.ts";

/**
 * Pinned facts end to end: the real bolt app against the fake Slack and the
 * real Worker. What people see when they pin, list and unpin, and what the
 * model reads in the next turn.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;
startedForTests(() => startSlackSetup([{}]), (s) => ({ stack, slack, bots: [bot] } = s));

const shown = (body: Record<string, unknown>) => ((body.blocks ?? []) as Parameters<typeof blockTexts>[0][]).flatMap(blockTexts).join("\n");

/** `/duet <text>` from `user`: what they see and whether the channel sees it too. */
async function duet(channel: string, text: string, user = "U0ALICE") {
  const { fields } = await slash(slack, bot, channel, text, user);
  const body = await slashResponse(slack, fields);
  return { text: shown(body), visibility: body.response_type as string };
}

describe("Slack: /duet remember, memory, forget", () => {
  it("pins a fact for everyone to see, lists it to the asker alone, the model reads it, and unpins it", async () => {
    const channel = newChannel();
    expect((await duet(channel, "memory")).text).toContain("Nothing is pinned here yet.");
    const pinned = await duet(channel, "remember staging runs on port 8443");
    expect(pinned).toEqual({ text: ":pushpin: <@U0ALICE> pinned fact 1: `staging runs on port 8443`. Duet keeps it in mind in every answer here.", visibility: "in_channel" });
    const listed = await duet(channel, "memory", "U0BOB");
    expect(listed.visibility).toBe("ephemeral");
    expect(listed.text).toMatch(/Facts pinned here \(1 of 100\)[^\n]*\n1\. `staging runs on port 8443` pinned by <@U0ALICE> on \d{4}-\d\d-\d\d\n`\/duet remember FACT` pins one; `\/duet forget N` unpins number N\./);

    const marker = `after-pin-${channel}`;
    await answerTo(slack, await mention(slack, bot, { channel, text: `SAY: ok ${marker}`, user: "U0BOB" }));
    const [call] = stack.model.calls.filter((c) => c.messages.at(-1)?.content.includes(marker));
    expect(call.messages.some((m) => m.content.includes("1. staging runs on port 8443 (pinned by"))).toBe(true);

    expect(await duet(channel, "forget 1", "U0BOB")).toEqual({ text: ":pushpin: <@U0BOB> unpinned fact 1: `staging runs on port 8443`.", visibility: "in_channel" });
    expect((await stack.client.memory(`slack-${slack.id.teamId}-${channel}`)).facts).toEqual([]);
  });

  it("@Duet remember <fact> pins it in the thread for everyone, with no model call; a mention asking whether Duet remembers is asked", async () => {
    const channel = newChannel();
    const fact = `deploys freeze on Fridays ${channel}`;
    const [pinned] = await answerTo(slack, await mention(slack, bot, { channel, text: `remember ${fact}`, user: "U0CAROL" }));
    expect(readable(pinned)).toContain(`<@U0CAROL> pinned fact 1: \`${fact}\``);
    expect((await stack.client.memory(`slack-${slack.id.teamId}-${channel}`)).facts.map((f) => [f.text, f.pinnedBy])).toEqual([[fact, "U0CAROL"]]);
    // A question is asked as any other (the barrier that the pin reached no model: it was asked after it).
    const question = `remember what we said about deploys ${channel}?`;
    await answerTo(slack, await mention(slack, bot, { channel, text: question }));
    expect(stack.model.calls.filter((c) => c.messages.at(-1)?.content.includes(question))).toHaveLength(1);
    expect(stack.model.calls.filter((c) => c.messages.at(-1)?.content.includes(`remember ${fact}`))).toHaveLength(0);
  });

  it("answers an empty, oversized, unknown or hostile fact or number with one line for the asker, and keeps nothing", async () => {
    const channel = newChannel();
    const room = `slack-${slack.id.teamId}-${channel}`;
    expect(await duet(channel, "remember")).toEqual({ text: expect.stringContaining("`/duet remember` needs the fact to keep"), visibility: "ephemeral" });
    const long = await duet(channel, `remember ${"x".repeat(501)}`);
    expect(long.visibility).toBe("ephemeral");
    expect(long.text).toContain("Fact must be at most 500 characters");
    expect(await duet(channel, "forget")).toEqual({ text: expect.stringContaining("`/duet forget` needs the fact's number"), visibility: "ephemeral" });
    expect((await duet(channel, "forget two")).text).toContain("`two` is not a fact's number");
    expect(await duet(channel, "forget 3")).toEqual({ text: expect.stringContaining("No fact number 3 here"), visibility: "ephemeral" });
    expect((await stack.client.memory(room)).facts).toEqual([]);

    // A fact that would ping the channel or format the message is shown as plain text.
    const hostile = await duet(channel, "remember <!channel> *deploy* <@U0BOB> now");
    expect(hostile.text).not.toMatch(/<!channel>|<@U0BOB>/);
    expect((await stack.client.memory(room)).facts.map((f) => f.text)).toEqual(["<!channel> *deploy* @U0BOB now"]);
  });
});
