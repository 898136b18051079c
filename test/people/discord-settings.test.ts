import { describe, expect, it } from "vitest";
import { dollars } from "@duet/shared";
import { startedForTests } from "../helpers/lifecycle.ts";
import { snowflake, user } from "../fakes/discord/index.ts";
import type { Stack } from "../helpers/stack.ts";
import { interactionAnswer, mentionAnswer, type DiscordHarness, startDiscordSetup } from "../discord/harness.ts";

/**
 * A model per room, usage and budgets through the real discord.js client, the
 * fake Discord and the real Worker: DUET_MODELS offers two models (one by a name
 * of its own, priced), each person may use 300 tokens a day across the
 * workspace's rooms (a first ask takes more), and each room 600 tokens and $1
 * (one ask on the priced model costs more).
 */

let stack: Stack;
let h: DiscordHarness;
startedForTests(
  () => startDiscordSetup({ stack: { vars: { DUET_MODELS: "fake-model,large=openai:fake-large@5000/5000", DUET_USER_DAILY_TOKENS: "300", DUET_ROOM_DAILY_TOKENS: "600", DUET_ROOM_DAILY_USD: "1" } } }),
  (s) => ({ stack, h } = s),
);

const callsWith = (marker: string) => stack.model.calls.filter((c) => c.messages[c.messages.length - 1]?.content.includes(marker));

/**
 * `ask` (marked `marker`) by `from` in `ch` is refused with the per-person budget and its reset, and
 * never reaches the model: a barrier (`other`'s ask in the same channel, answered after it) is.
 */
async function refusedWithoutModelCall(ch: string, ask: string, marker: string, from: ReturnType<typeof user>, other: ReturnType<typeof user>) {
  const [refused] = await mentionAnswer(h, h.fake.message(ch, ask, { mention: true, from }));
  expect(refused.content).toMatch(/You have used your daily budget of 300 model tokens across this workspace's rooms \(DUET_USER_DAILY_TOKENS: \d+ used today\)\. It resets at 00:00 UTC, in /);
  const barrier = `barrier-${ch}`;
  await mentionAnswer(h, h.fake.message(ch, `SAY: ok ${barrier}`, { mention: true, from: other }));
  expect(callsWith(barrier)).toHaveLength(1);
  expect(callsWith(marker)).toHaveLength(0);
}

describe("settings on Discord", () => {
  it("/duet model switches the room's model, and its provider is asked for it under the provider's own name", async () => {
    const ch = h.fake.addChannel(h.guildId, "model-switch");
    const shown = await interactionAnswer(h, h.fake.interaction(ch, { subcommand: "model" }));
    expect(shown.text).toContain("The model here is `fake-model` (the default). Choices: `fake-model`, `large`.");
    const set = await interactionAnswer(h, h.fake.interaction(ch, { subcommand: "model", options: { name: "large" } }));
    expect(set.text).toContain(`<@${h.fake.alice.id}> switched the model here to \`large\``);
    const marker = `after-switch-${ch}`;
    await mentionAnswer(h, h.fake.message(ch, `SAY: ok ${marker}`, { mention: true }));
    expect(callsWith(marker).map((c) => c.model)).toEqual(["fake-large"]);
  });

  it("/duet model with an unknown name answers the choices and changes nothing", async () => {
    const ch = h.fake.addChannel(h.guildId, "model-unknown");
    const { text } = await interactionAnswer(h, h.fake.interaction(ch, { subcommand: "model", options: { name: "gpt-9000" } }));
    expect(text).toContain('Unknown model "gpt-9000"; choose one of: fake-model, large');
    expect((await stack.client.model(`discord-${h.guildId}-${ch}`)).model).toBe("fake-model");
  });

  it("a person past their daily budget is refused with the budget and its reset, with no model call; /duet usage shows their figures", async () => {
    const spree = user(snowflake(), "spree");
    h.fake.setMember(spree, { nick: "Spree" });
    const other = user(snowflake(), "other");
    const ch = h.fake.addChannel(h.guildId, "budget");
    const first = `first-${ch}`;
    const [answered] = await mentionAnswer(h, h.fake.message(ch, `SAY: fine ${first}`, { mention: true, from: spree }));
    expect(answered.content).toContain(`fine ${first}`);
    const second = `second-${ch}`;
    await refusedWithoutModelCall(ch, `SAY: again ${second}`, second, spree, other);

    const [call] = callsWith(first);
    const { text } = await interactionAnswer(h, h.fake.interaction(ch, { subcommand: "usage" }, spree));
    expect(text).toContain(`Spree · fake-model · ${call.usage!.prompt_tokens} in / ${call.usage!.completion_tokens} out · 1 turn`);
    expect(text).toContain("other · fake-model");
    expect(text).toContain("No price for `fake-model`: tokens only (prices are set in DUET_MODELS).");
    expect(text).toMatch(/Your budget across this workspace's rooms: [\d,]+ of 300 tokens used today, 0 left \(resets at 00:00 UTC\)\./);
  });

  it("a room past its daily budget refuses the next ask, whoever asks, with that budget and its reset, and no model call", async () => {
    const ch = h.fake.addChannel(h.guildId, "room-budget");
    for (const name of ["rooma", "roomb"]) await mentionAnswer(h, h.fake.message(ch, `SAY: fine ${name}-${ch}`, { mention: true, from: user(snowflake(), name) }));
    const late = `late-${ch}`;
    const [refused] = await mentionAnswer(h, h.fake.message(ch, `SAY: late ${late}`, { mention: true, from: user(snowflake(), "roomc") }));
    expect(refused.content).toMatch(/This room has used its daily budget of 600 model tokens \(DUET_ROOM_DAILY_TOKENS: \d+ used today\)\. It resets at 00:00 UTC, in /);
    // Barrier: an ask in another channel, answered after the refusal; the refused one never reached the model.
    const barrier = `barrier-${ch}`;
    await mentionAnswer(h, h.fake.message(h.fake.addChannel(h.guildId, "room-budget-other"), `SAY: ok ${barrier}`, { mention: true, from: user(snowflake(), "roomd") }));
    expect(callsWith(barrier)).toHaveLength(1);
    expect(callsWith(late)).toHaveLength(0);
  });

  it("a person's budget holds across the server's channels: spent in one, refused in another, with no model call", async () => {
    const roamer = user(snowflake(), "roamer");
    const other = user(snowflake(), "other");
    const [one, two] = [h.fake.addChannel(h.guildId, "budget-one"), h.fake.addChannel(h.guildId, "budget-two")];
    const spent = `spent-${one}`;
    await mentionAnswer(h, h.fake.message(one, `SAY: fine ${spent}`, { mention: true, from: roamer }));
    expect(callsWith(spent)).toHaveLength(1);
    const elsewhere = `elsewhere-${two}`;
    await refusedWithoutModelCall(two, `SAY: again ${elsewhere}`, elsewhere, roamer, other);
  });

  it("prices a turn on a priced model: /duet usage shows its cost, and the room's money budget refuses the next ask with no model call", async () => {
    const ch = h.fake.addChannel(h.guildId, "priced");
    await interactionAnswer(h, h.fake.interaction(ch, { subcommand: "model", options: { name: "large" } }));
    const paid = `paid-${ch}`;
    await mentionAnswer(h, h.fake.message(ch, `SAY: fine ${paid}`, { mention: true, from: user(snowflake(), "payer") }));
    const [call] = callsWith(paid);
    const cost = (call.usage!.prompt_tokens + call.usage!.completion_tokens) * 0.005;
    const { text } = await interactionAnswer(h, h.fake.interaction(ch, { subcommand: "usage" }));
    expect(text).toContain(`large · ${call.usage!.prompt_tokens} in / ${call.usage!.completion_tokens} out · ${dollars(cost)} · 1 turn`);
    expect(text).toMatch(/Room spending: \$[\d.,]+ of \$1\.00 today, \$0\.00 left \(resets at 00:00 UTC\)\./);

    const late = `late-${ch}`;
    const [refused] = await mentionAnswer(h, h.fake.message(ch, `SAY: late ${late}`, { mention: true, from: user(snowflake(), "second") }));
    expect(refused.content).toMatch(/This room has spent its daily budget of \$1\.00 on models \(DUET_ROOM_DAILY_USD: \$[\d.,]+ today\)\. It resets at 00:00 UTC, in /);
    const barrier = `barrier-${ch}`;
    await mentionAnswer(h, h.fake.message(h.fake.addChannel(h.guildId, "priced-other"), `SAY: ok ${barrier}`, { mention: true, from: user(snowflake(), "third") }));
    expect(callsWith(barrier)).toHaveLength(1);
    expect(callsWith(late)).toHaveLength(0);
  });
});
