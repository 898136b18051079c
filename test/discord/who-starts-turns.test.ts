import { describe, expect, it } from "vitest";
import { snowflake, user } from "../fakes/discord/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { mentionAnswer, modelCallsFor, startDiscordSetup, type DiscordHarness } from "./harness.ts";

/**
 * Only a person's own message starts a turn. Each case is a MESSAGE_CREATE (or
 * MESSAGE_UPDATE) as Discord sends it; a person's message sent after them is the
 * barrier: once it is answered, the ones before had their chance to misbehave.
 */

/** Discord's own system user, which writes official notices (also in DMs). */
const SYSTEM_USER = { ...user("643945264868098049", "Discord"), system: true };
const JOIN_NOTICE = 7;
const PIN_NOTICE = 6;
const REPLY = 19;

describe("who starts a turn on Discord", () => {
  let stack: Stack;
  let h: DiscordHarness;
  startedForTests(() => startDiscordSetup(), (s) => ({ stack, h } = s));

  const messageCalls = () => h.workerRequests.filter((r) => r.path.endsWith("/message")).length;
  const postsIn = (channel: string) => h.fake.messagesIn(channel).filter((m) => m.author.id === h.fake.botUser.id);

  it("in a channel: another bot, a webhook, Discord's system user, Duet itself, an edit, a join and a pin start nothing; a person's reply does", async () => {
    const ch = h.fake.addChannel(h.guildId, "not-people");
    const before = messageCalls();
    h.fake.message(ch, "SAY: other-bot-marker", { mention: true, from: user(snowflake(), "OtherBot", true) });
    h.fake.message(ch, "SAY: webhook-marker", { mention: true, from: user(snowflake(), "Captain Hook"), fields: { webhook_id: snowflake() } });
    h.fake.message(ch, "SAY: system-marker", { mention: true, from: SYSTEM_USER });
    const own = h.fake.message(ch, "SAY: self-marker", { mention: true, from: h.fake.botUser });
    h.fake.message(ch, `<@${h.fake.botUser.id}> SAY: join-marker`, { fields: { type: JOIN_NOTICE } });
    h.fake.message(ch, "SAY: pin-marker", { mention: true, fields: { type: PIN_NOTICE } });
    // A person edits a message to mention Duet: Discord sends MESSAGE_UPDATE, which is no new question.
    const original = h.fake.message(ch, "no mention yet");
    h.fake.gateway.dispatch("MESSAGE_UPDATE", {
      ...original,
      guild_id: h.guildId,
      content: `<@${h.fake.botUser.id}> SAY: edit-marker`,
      mentions: [h.fake.botUser],
      edited_timestamp: new Date().toISOString(),
    });

    const reply = h.fake.message(ch, "SAY: person-reply-marker", {
      mention: true,
      fields: { type: REPLY, message_reference: { message_id: original.id, channel_id: ch, guild_id: h.guildId } },
    });
    const [answer] = await mentionAnswer(h, reply);
    expect(answer.content).toContain("person-reply-marker");
    expect(messageCalls() - before).toBe(1);
    for (const marker of ["other-bot", "webhook", "system", "self", "join", "pin", "edit"]) expect(modelCallsFor(stack, `${marker}-marker`)).toBe(0);
    expect(postsIn(ch).map((m) => m.id)).toEqual([own.id, answer.id]);
  });

  it("in a DM: Discord's system user, another bot and Duet itself get nothing; a person gets the pointer to servers", async () => {
    const quiet = [
      h.fake.directMessage("Your account has a new login.", SYSTEM_USER),
      h.fake.directMessage("hello from a bot", user(snowflake(), "OtherBot", true)),
      h.fake.directMessage("hello from myself", h.fake.botUser),
    ];
    const person = h.fake.directMessage("hello there", h.fake.alice);
    const [answer] = await mentionAnswer(h, person);
    expect(answer.content).toContain("Duet works in servers");
    for (const dm of quiet) expect(postsIn(dm.channel_id).filter((m) => m.id !== dm.id)).toEqual([]);
  });
});
