import { describe, expect, it } from "vitest";
import { dollars } from "@duet/shared";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { FakeSlack } from "../fakes/slack/index.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, bodyText, mention, newChannel, readable, slash, slashResponse, startSlackSetup } from "../slack/harness.ts";

/**
 * A model per room, usage and budgets through the real bolt app, the fake Slack
 * and the real Worker: DUET_MODELS offers two models (one by a name of its
 * own, priced), each person may use 300 tokens a day across the workspace's
 * rooms (a first ask with the system prompt takes more), and each room 600
 * tokens and $1 (one ask on the priced model costs more).
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;

const VARS = { DUET_MODELS: "fake-model,large=openai:fake-large@5000/5000", DUET_USER_DAILY_TOKENS: "300", DUET_ROOM_DAILY_TOKENS: "600", DUET_ROOM_DAILY_USD: "1" };
startedForTests(() => startSlackSetup([{}], { vars: VARS }), (s) => ({ stack, slack, bots: [bot] } = s));

/** The body Slack got on the command's response_url. */
const responseTo = async (fields: Record<string, string>): Promise<string> => bodyText(await slashResponse(slack, fields));
const callsWith = (marker: string) => stack.model.calls.filter((c) => c.messages[c.messages.length - 1]?.content.includes(marker));

/**
 * `ask` (marked `marker`) by `user` in `channel` is refused with the per-person budget and its reset,
 * and never reaches the model: a barrier (`other`'s ask in the same channel, answered after it) is.
 */
async function refusedWithoutModelCall(channel: string, ask: string, marker: string, user: string, other: string) {
  const [refused] = await answerTo(slack, await mention(slack, bot, { channel, text: ask, user }));
  expect(readable(refused)).toMatch(/You have used your daily budget of 300 model tokens across this workspace's rooms \(DUET_USER_DAILY_TOKENS: \d+ used today\)\. It resets at 00:00 UTC, in /);
  const barrier = `barrier-${channel}`;
  await answerTo(slack, await mention(slack, bot, { channel, text: `SAY: ok ${barrier}`, user: other }));
  expect(callsWith(barrier)).toHaveLength(1);
  expect(callsWith(marker)).toHaveLength(0);
}

describe("settings on Slack", () => {
  it("/duet model switches the room's model, and its provider is asked for it under the provider's own name", async () => {
    const channel = newChannel();
    const shown = await slash(slack, bot, channel, "model", "U0ALICE");
    expect(await responseTo(shown.fields)).toContain("The model here is `fake-model` (the default). Choices: `fake-model`, `large`.");
    const set = await slash(slack, bot, channel, "model large", "U0ALICE");
    expect(await responseTo(set.fields)).toContain("<@U0ALICE> switched the model here to `large`");
    const marker = `after-switch-${channel}`;
    await answerTo(slack, await mention(slack, bot, { channel, text: `SAY: ok ${marker}`, user: "U0ALICE" }));
    expect(callsWith(marker).map((c) => c.model)).toEqual(["fake-large"]);
  });

  it("/duet model with an unknown name answers the choices and changes nothing", async () => {
    const channel = newChannel();
    const { fields } = await slash(slack, bot, channel, "model gpt-9000", "U0ALICE");
    expect(await responseTo(fields)).toContain('Unknown model "gpt-9000"; choose one of: fake-model, large');
    expect((await stack.client.model(`slack-${slack.id.teamId}-${channel}`)).model).toBe("fake-model");
  });

  it("a person past their daily budget is refused with the budget and its reset, with no model call; /duet usage shows their figures", async () => {
    slack.ws.people.set("U0SPREE", "Spree");
    const channel = newChannel();
    const first = `first-${channel}`;
    const [answered] = await answerTo(slack, await mention(slack, bot, { channel, text: `SAY: fine ${first}`, user: "U0SPREE" }));
    expect(readable(answered)).toContain(`fine ${first}`);
    const second = `second-${channel}`;
    await refusedWithoutModelCall(channel, `SAY: again ${second}`, second, "U0SPREE", "U0OTHER");

    const [call] = callsWith(first);
    const { fields } = await slash(slack, bot, channel, "usage", "U0SPREE");
    const text = await responseTo(fields);
    expect(text).toContain(`Spree · fake-model · ${call.usage!.prompt_tokens} in / ${call.usage!.completion_tokens} out · 1 turn`);
    expect(text).toContain("member-U0OTHER · fake-model");
    // fake-model has no price: tokens only, and the usage says so.
    expect(text).toContain("No price for `fake-model`: tokens only (prices are set in DUET_MODELS).");
    expect(text).toMatch(/Your budget across this workspace's rooms: [\d,]+ of 300 tokens used today, 0 left \(resets at 00:00 UTC\)\./);
  });

  it("a room past its daily budget refuses the next ask, whoever asks, with that budget and its reset, and no model call", async () => {
    const channel = newChannel();
    for (const user of ["U0ROOMA", "U0ROOMB"]) await answerTo(slack, await mention(slack, bot, { channel, text: `SAY: fine ${user}-${channel}`, user }));
    const late = `late-${channel}`;
    const [refused] = await answerTo(slack, await mention(slack, bot, { channel, text: `SAY: late ${late}`, user: "U0ROOMC" }));
    expect(readable(refused)).toMatch(/This room has used its daily budget of 600 model tokens \(DUET_ROOM_DAILY_TOKENS: \d+ used today\)\. It resets at 00:00 UTC, in /);
    // Barrier: an ask in another channel, answered after the refusal; the refused one never reached the model.
    const barrier = `barrier-${channel}`;
    await answerTo(slack, await mention(slack, bot, { channel: newChannel(), text: `SAY: ok ${barrier}`, user: "U0ROOMD" }));
    expect(callsWith(barrier)).toHaveLength(1);
    expect(callsWith(late)).toHaveLength(0);
  });

  it("a person's budget holds across the workspace's channels: spent in one, refused in another, with no model call", async () => {
    const [one, two] = [newChannel(), newChannel()];
    const spent = `spent-${one}`;
    await answerTo(slack, await mention(slack, bot, { channel: one, text: `SAY: fine ${spent}`, user: "U0ROAMER" }));
    expect(callsWith(spent)).toHaveLength(1);
    const elsewhere = `elsewhere-${two}`;
    // The barrier is someone with budget left.
    await refusedWithoutModelCall(two, `SAY: again ${elsewhere}`, elsewhere, "U0ROAMER", "U0NEWCOMER");
  });

  it("prices a turn on a priced model: /duet usage shows its cost, and the room's money budget refuses the next ask with no model call", async () => {
    const channel = newChannel();
    await slash(slack, bot, channel, "model large", "U0PAYER");
    const paid = `paid-${channel}`;
    await answerTo(slack, await mention(slack, bot, { channel, text: `SAY: fine ${paid}`, user: "U0PAYER" }));
    const [call] = callsWith(paid);
    // $5,000 per million tokens in and out: five thousandths of a dollar a token.
    const cost = (call.usage!.prompt_tokens + call.usage!.completion_tokens) * 0.005;
    const usage = await responseTo((await slash(slack, bot, channel, "usage", "U0PAYER")).fields);
    expect(usage).toContain(`large · ${call.usage!.prompt_tokens} in / ${call.usage!.completion_tokens} out · ${dollars(cost)} · 1 turn`);
    expect(usage).toMatch(/Room spending: \$[\d.,]+ of \$1\.00 today, \$0\.00 left \(resets at 00:00 UTC\)\./);
    expect(usage).not.toContain("No price for");

    const late = `late-${channel}`;
    const [refused] = await answerTo(slack, await mention(slack, bot, { channel, text: `SAY: late ${late}`, user: "U0SECOND" }));
    expect(readable(refused)).toMatch(/This room has spent its daily budget of \$1\.00 on models \(DUET_ROOM_DAILY_USD: \$[\d.,]+ today\)\. It resets at 00:00 UTC, in /);
    const barrier = `barrier-${channel}`;
    await answerTo(slack, await mention(slack, bot, { channel: newChannel(), text: `SAY: ok ${barrier}`, user: "U0THIRD" }));
    expect(callsWith(barrier)).toHaveLength(1);
    expect(callsWith(late)).toHaveLength(0);
  });
});
