import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { interactionAnswer, mentionAnswer, type DiscordHarness } from "../discord/harness.ts";
import { type FakeSlack, mentionEvent, postEvent } from "../fakes/slack/index.ts";
import { answerTo, type BotHandle, botReplies, mention, modelCallsFor, newChannel, readable, SIGNING_SECRET } from "../slack/harness.ts";
import { startChatRig } from "./chat-rig.ts";
import { type Rig, slackRoom } from "./rig.ts";
import { turn } from "./tally.ts";

/**
 * The model is slow, fails, or answers nonsense. The platforms' deadlines are
 * met anyway (Slack's ack, Discord's deferral), each failure gets one clear
 * line in the thread, and the room's history only ever holds whole turns: a
 * failed turn leaves nothing, not even after a Worker restart.
 */

let rig: Rig;
let slack: FakeSlack;
let bot: BotHandle;
let discord: DiscordHarness;

// Longer than Slack's and Discord's 3 s, so a model that takes 3.5 s is slow but on time.
const MODEL_TIMEOUT_MS = 6_000;

startedForTests(() => startChatRig({ MODEL_TIMEOUT_MS: String(MODEL_TIMEOUT_MS) }), (started) => ({ rig, slack, bot, discord } = started));

/** What a stack trace or a raw exception looks like in chat. */
const INTERNALS = /\n\s+at |\bError:|TypeError|undefined|\[object Object\]/;

describe("a model that is slow beyond the platforms' deadlines", () => {
  it("Slack: the event is acked before the answer exists, and the answer comes once", async () => {
    const channel = newChannel();
    const marker = `slow-ack-${channel}`;
    const t = turn("Slack mention, model slower than the ack deadline");
    const payload = mentionEvent(slack, { channel, text: `SLOW:3500 SAY: ${marker}` });
    const ts = String(payload.event.ts);
    const delivery = await postEvent(bot.url, payload, { secret: SIGNING_SECRET });
    // The ack is back while the turn is still running: Slack never waits on the model.
    expect(delivery.status).toBe(200);
    expect(botReplies(slack, channel, ts)).toEqual([]);
    const replies = await answerTo(slack, { channel, ts, threadTs: ts });
    t.answered(replies);
    expect(readable(replies[0])).toContain(marker);
    // The ack came in time, so Slack had no reason to retry: one delivery, one model call.
    expect(modelCallsFor(rig.stack, marker)).toBe(1);
  });

  it("Discord: the interaction is deferred within its 3 s, then the deferred reply is edited once", async () => {
    const ch = discord.fake.addChannel(discord.guildId, "slow");
    const marker = `slow-defer-${ch}`;
    const t = turn("Discord interaction, model slower than the 3 s deadline");
    const rec = discord.fake.interaction(ch, { subcommand: "ask", options: { prompt: `SLOW:3500 SAY: ${marker}` } });
    const { messages, text } = await interactionAnswer(discord, rec);
    t.answered(messages);
    expect(text).toContain(marker);
    // The fake refuses a first response after 3 s (10062); this one was a deferral, accepted.
    const callbacks = discord.fake.calls.filter((c) => c.path === `/interactions/${rec.id}/${rec.token}/callback`);
    expect(callbacks.map((c) => [c.status, c.body?.type])).toEqual([[204, 5]]);
  });
});

describe("a model that fails", () => {
  const cases = [
    ["slower than the Worker's deadline", `SLOW:${MODEL_TIMEOUT_MS + 2_000} SAY: never-shown`, /The AI model took too long to answer\. Please try again in a moment\./],
    ["answering HTTP 500", "FAIL:500", /The AI model failed to answer \(the model endpoint answered HTTP 500\)\. Please try again in a moment\./],
    ["rate-limited (HTTP 429)", "FAIL:429", /The AI model failed to answer \(the model endpoint answered HTTP 429\)/],
    ["answering a body that is not JSON", "GARBAGE", /The AI model failed to answer \(the model endpoint answered with something that is not JSON\)/],
    ["answering an empty completion", "EMPTY", /The AI model failed to answer \(the model returned an empty answer\)/],
  ] as const;

  it.each(cases)("%s: one clear line in the thread, ⚠️ on the mention, no half turn in the history", async (what, script, expected) => {
    const channel = newChannel();
    const room = slackRoom(slack.id.teamId, channel);
    const marker = `model-fault-${channel}`;
    const t = turn(`Slack mention, model ${what}`);
    const m = await mention(slack, bot, { channel, text: `${script} ${marker}` });
    const replies = await answerTo(slack, m);
    t.answered(replies);
    const seen = readable(replies[0]);
    expect(seen).toMatch(expected);
    expect(seen).not.toMatch(INTERNALS);
    expect(slack.ws.reactionsOn(channel, m.ts)).toEqual(["eyes", "warning"]);
    expect((await rig.stack.client.history(room)).messages).toEqual([]);

    // The room works right after, and holds only the whole turn that followed.
    const followUp = `after-${marker}`;
    const next = turn(`Slack mention after the model ${what}`);
    const again = await mention(slack, bot, { channel, text: `SAY: ${followUp}` });
    next.answered(await answerTo(slack, again));
    const { messages } = await rig.stack.client.history(room);
    expect(messages.map((x) => `${x.role}:${x.text}`)).toEqual([`user:SAY: ${followUp}`, `agent:${followUp}`]);
  });

  it("Discord: a mention and a /duet ask with a failing model each get one clear line", async () => {
    const ch = discord.fake.addChannel(discord.guildId, "model-fails");
    const t1 = turn("Discord mention, model answering HTTP 500");
    const msg = discord.fake.message(ch, `FAIL:500 discord-mention-${ch}`, { mention: true });
    const replies = await mentionAnswer(discord, msg);
    t1.answered(replies);
    expect(replies[0].content).toMatch(/The AI model failed to answer \(the model endpoint answered HTTP 500\)/);
    const t2 = turn("Discord interaction, model answering garbage");
    const rec = discord.fake.interaction(ch, { subcommand: "ask", options: { prompt: `GARBAGE discord-ask-${ch}` } });
    const { messages, text } = await interactionAnswer(discord, rec);
    t2.answered(messages);
    expect(text).toMatch(/The AI model failed to answer \(the model endpoint answered with something that is not JSON\)/);
    for (const shown of [replies[0].content, text]) expect(shown).not.toMatch(INTERNALS);
    expect((await rig.stack.client.history(`discord-${discord.guildId}-${ch}`)).messages).toEqual([]);
  });

  it("after a Worker restart, no failed turn comes back: the history holds only whole turns, nothing is resumed", async () => {
    const channel = newChannel();
    const room = slackRoom(slack.id.teamId, channel);
    for (const script of ["FAIL:500", "GARBAGE", "EMPTY"]) {
      const t = turn(`Slack mention failing (${script}) before a restart`);
      const m = await mention(slack, bot, { channel, text: `${script} before-restart-${channel}` });
      const replies = await answerTo(slack, m);
      t.answered(replies);
      expect(readable(replies[0])).toMatch(/The AI model failed to answer/);
    }
    const ok = turn("Slack mention answered before a restart");
    ok.answered(await answerTo(slack, await mention(slack, bot, { channel, text: `SAY: whole-${channel}` })));

    await rig.stack.restartWorker();
    const calls = rig.stack.model.calls.length;
    // The first request after the restart wakes the room; a pending turn left behind would be resumed now.
    const t = turn("Slack mention after the restart");
    const replies = await answerTo(slack, await mention(slack, bot, { channel, text: `SAY: woken-${channel}` }));
    t.answered(replies);
    expect(readable(replies[0])).toContain(`woken-${channel}`);
    expect(rig.stack.model.calls.length).toBe(calls + 1);
    const { messages } = await rig.stack.client.history(room);
    expect(messages.map((x) => x.text)).toEqual([`SAY: whole-${channel}`, `whole-${channel}`, `SAY: woken-${channel}`, `woken-${channel}`]);
  });
});
