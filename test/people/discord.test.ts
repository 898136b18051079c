import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { user, snowflake } from "../fakes/discord/index.ts";
import type { Stack } from "../helpers/stack.ts";
import { interactionAnswer, mentionAnswer, type DiscordHarness, startDiscordSetup } from "../discord/harness.ts";

/** Who is talking, through the real discord.js client, the fake Discord (member nicknames) and the real Worker. */

let stack: Stack;
let h: DiscordHarness;
startedForTests(() => startDiscordSetup(), (s) => ({ stack, h } = s));

const askedIn = (marker: string) =>
  stack.model.calls.filter((c) => c.messages[c.messages.length - 1]?.content.includes(marker)).map((c) => c.messages.filter((m) => m.role === "user").map((m) => m.content));

describe("people on Discord", () => {
  it("the model sees each question under its asker's server display name, and a mention of a teammate as their name", async () => {
    const ada = user(snowflake(), "ada_l");
    const bob = user(snowflake(), "bobby");
    h.fake.setMember(ada, { nick: "Ada (ops)" });
    const ch = h.fake.addChannel(h.guildId, "people");
    const first = `first-${ch}`;
    await mentionAnswer(h, h.fake.message(ch, `SAY: noted ${first}`, { mention: true, from: ada }));
    const second = `second-${ch}`;
    await mentionAnswer(h, h.fake.message(ch, `SAY: ok ${second} what did <@${ada.id}> ask?`, { mention: true, from: bob, mentions: [ada] }));
    const [asked] = askedIn(second);
    expect(asked[0]).toBe(`[from "Ada (ops)"]\nSAY: noted ${first}`);
    // Bob has no nickname here: his global display name.
    expect(asked[asked.length - 1]).toBe(`[from "bobby"]\nSAY: ok ${second} what did @Ada (ops) ask?`);
    const { messages } = await stack.client.history(`discord-${h.guildId}-${ch}`);
    expect(messages.filter((m) => m.role === "user").map((m) => m.userName)).toEqual(["Ada (ops)", "bobby"]);
  });

  it("a slash command's question carries the member's display name", async () => {
    const carol = user(snowflake(), "carol");
    h.fake.setMember(carol, { nick: "Carol C" });
    const ch = h.fake.addChannel(h.guildId, "slash-people");
    const marker = `slash-${ch}`;
    await interactionAnswer(h, h.fake.interaction(ch, { subcommand: "ask", options: { prompt: `SAY: hi ${marker}` } }, carol));
    const [asked] = askedIn(marker);
    expect(asked[asked.length - 1]).toBe(`[from "Carol C"]\nSAY: hi ${marker}`);
  });
});
