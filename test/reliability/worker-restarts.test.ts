import { createServer, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { interactionAnswer, type DiscordHarness } from "../discord/harness.ts";
import type { FakeSlack } from "../fakes/slack/index.ts";
import { releaseHeld } from "../helpers/model-control.ts";
import { answerTo, type BotHandle, botReplies, callsIn, mention, modelCallsFor, newChannel, readable } from "../slack/harness.ts";
import { startChatRig } from "./chat-rig.ts";
import { type Rig, slackRoom } from "./rig.ts";
import { turn } from "./tally.ts";
import { COMING, DELIVERY_GRACE_MS, discordComingNote, discordDeliveredInReply, replyEdits, slackComingNote, slackDeliveredAfterOutage, TRY_AGAIN } from "./lost-answer.ts";

/**
 * The Worker goes away mid-turn (a redeploy, a crash, an eviction) and comes
 * back on the same storage. The bots retry with the same idempotency key; the
 * Worker resumes the turn it had recorded, so the person gets one answer. A
 * command that was running is never run again: the answer and the history
 * say its outcome is unknown.
 */

let rig: Rig;
let slack: FakeSlack;
let bot: BotHandle;
let discord: DiscordHarness;

startedForTests(() => startChatRig({ DUET_DELIVERY_GRACE_MS: DELIVERY_GRACE_MS }), (started) => ({ rig, slack, bot, discord } = started));


/** Nothing the bot sent to the channel told anyone to try again, and no streaming call went to a message not started as a stream. */
function expectNeverTryAgainNorStreamedPlain(channel: string, threadTs: string): void {
  const sent = ["chat.postMessage", "chat.update", "chat.startStream", "chat.appendStream", "chat.stopStream"].flatMap((method) => callsIn(slack, method, channel));
  expect(sent.filter((c) => TRY_AGAIN.test(JSON.stringify(c.args)))).toEqual([]);
  const streamed = new Set(slack.ws.thread(channel, threadTs).filter((x) => x.stream).map((x) => x.ts));
  const streamCalls = ["chat.appendStream", "chat.stopStream"].flatMap((method) => callsIn(slack, method, channel));
  expect(streamCalls.filter((c) => !streamed.has(String(c.args.ts)))).toEqual([]);
}

const UNKNOWN = "outcome unknown: Duet restarted while this command was running, so it was not run again";

describe("the Worker restarts mid-turn", () => {
  it("while a Slack turn waits on the model: the retry is answered once, from the resumed turn", async () => {
    const channel = newChannel();
    const marker = `model-wait-${channel}`;
    const t = turn("Slack mention across a Worker restart (model)");
    const m = await mention(slack, bot, { channel, text: `SLOW:3000 SAY: ${marker}` });
    await expect.poll(() => modelCallsFor(rig.stack, marker), { timeout: 20_000, interval: 20 }).toBe(1);
    await rig.stack.restartWorker();

    const replies = await answerTo(slack, m);
    t.answered(replies);
    expect(readable(replies[0])).toContain(marker);
    expect(slack.ws.reactionsOn(channel, m.ts)).toContain("white_check_mark");
    // The first call died with the old Worker; the resumed turn asked again.
    expect(modelCallsFor(rig.stack, marker)).toBe(2);
    const { messages } = await rig.stack.client.history(slackRoom(slack.id.teamId, channel));
    expect(messages.map((x) => `${x.role}:${x.text}`)).toEqual([`user:SLOW:3000 SAY: ${marker}`, `agent:${marker}`]);
  });

  it("while a Discord /duet ask waits on the model: one edited answer after the restart", async () => {
    const ch = discord.fake.addChannel(discord.guildId, "restart");
    const marker = `discord-model-wait-${ch}`;
    const t = turn("Discord interaction across a Worker restart (model)");
    const rec = discord.fake.interaction(ch, { subcommand: "ask", options: { prompt: `SLOW:3000 SAY: ${marker}` } });
    await expect.poll(() => modelCallsFor(rig.stack, marker), { timeout: 20_000, interval: 20 }).toBe(1);
    await rig.stack.restartWorker();

    const { messages, text } = await interactionAnswer(discord, rec);
    t.answered(messages);
    expect(text).toContain(marker);
    const { messages: history } = await rig.stack.client.history(`discord-${discord.guildId}-${ch}`);
    expect(history.map((x) => x.role)).toEqual(["user", "agent"]);
  });

  it("killed after the first words, back within the bot's tries: the claimed ask's retry follows the resumed turn, one answer, confirmed before its ✅", async () => {
    const channel = newChannel();
    const room = slackRoom(slack.id.teamId, channel);
    const marker = `claim-kill-${channel}`;
    const hold = `claim-hold-${channel}`;
    const t = turn("Slack mention across a Worker kill (claim is the ask)");
    const m = await mention(slack, bot, { channel, text: `HOLD:${hold} CHUNK:8 SAY: Let me look at ${marker} now.` });
    await slack.waitFor(() => slack.ws.reactionsOn(channel, m.ts).includes("eyes"), "the 👀");
    // The stream shows the first words: the room took the turn under this delivery's claim.
    await slack.waitFor(() => callsIn(slack, "chat.startStream", channel)[0], "the stream's start");
    // The next reaction is the answer's ✅: held, so the room's state is read at the moment the answer is marked done.
    const done = slack.hold("reactions.add");
    await rig.stack.stopWorker();
    await rig.stack.restartWorker();
    await releaseHeld(rig.stack.model, hold);

    try {
      await done.arrived;
      // The delivery that asked posted the answer and told the room so before its ✅: the outbox has nothing left to post.
      // (An answer the outbox delivers gets its ✅ before its confirm.) A repeated confirm is not the first: no `first`.
      const [answer, ...more] = botReplies(slack, channel, m.threadTs);
      expect(more).toEqual([]);
      expect(await rig.stack.client.confirmDelivery(room, { key: m.eventId, messageId: answer.ts })).toEqual({ confirmed: true });
    } finally {
      done.release();
    }

    const replies = await answerTo(slack, m);
    t.answered(replies);
    // One message, the stream the bot began, holding the whole answer once.
    expect(replies).toHaveLength(1);
    expect(replies[0].stream).toBeDefined();
    expect(replies[0].text.split(marker)).toHaveLength(2);
    expect(callsIn(slack, "chat.startStream", channel)).toHaveLength(1);
    // The bot's own retry carried the answer: the thread was never told it is coming, nor to try again.
    const sent = ["chat.postMessage", "chat.update", "chat.startStream", "chat.appendStream", "chat.stopStream"].flatMap((method) => callsIn(slack, method, channel));
    expect(sent.filter((c) => COMING.test(JSON.stringify(c.args)))).toEqual([]);
    expectNeverTryAgainNorStreamedPlain(channel, m.threadTs);
    const { messages } = await rig.stack.client.history(room);
    expect(messages.map((x) => x.role)).toEqual(["user", "agent"]);
  });

  it("killed while a command runs: the command is not run again, the next one runs, and the answer says the outcome is unknown", async () => {
    const channel = newChannel();
    const room = slackRoom(slack.id.teamId, channel);
    const marker = `killed-${channel}`;
    const first = `echo started >> cmd.txt; sleep 2; echo finished >> cmd.txt`;
    const t = turn("Slack mention across a Worker kill (command)");
    const m = await mention(slack, bot, { channel, text: `SAY: ${marker} <run>${first}</run> <run>echo next-${marker}</run>` });
    // The command has started in the real sandbox once its first line is on disk.
    await expect.poll(() => rig.workspaceFile(room, "cmd.txt"), { timeout: 20_000, interval: 20 }).toBe("started\n");
    await rig.stack.stopWorker();
    await rig.stack.restartWorker();

    const replies = await answerTo(slack, m);
    t.answered(replies);
    const seen = readable(replies[0]);
    expect(seen).toContain("outcome unknown");
    expect(seen).toContain(`next-${marker}`);
    // Not run again: one "started" (the Worker's hang-up also stopped it before "finished").
    expect(rig.workspaceFile(room, "cmd.txt")).toBe("started\n");
    expect(rig.executed().filter((c) => c === first)).toHaveLength(1);
    expect(modelCallsFor(rig.stack, marker)).toBe(1);
    const { messages } = await rig.stack.client.history(room);
    expect(messages.map((x) => x.role)).toEqual(["user", "agent"]);
    expect(messages[1].text).toContain(`Error (${first}):\n${UNKNOWN}`);
    expect(messages[1].text).toContain(`Output (echo next-${marker}):\nnext-${marker}`);
  });

  it("down mid-answer past the bot's tries, after the stream began: the stream says the answer is coming, never to try again, and becomes the answer", async () => {
    const channel = newChannel();
    const marker = `coming-stream-${channel}`;
    const hold = `coming-hold-${channel}`;
    const t = turn("Slack mention across a long Worker outage (streaming)");
    const m = await mention(slack, bot, { channel, text: `HOLD:${hold} CHUNK:8 SAY: Let me look at ${marker} for you.` });
    await slack.waitFor(() => callsIn(slack, "chat.startStream", channel)[0], "the stream's start");
    await rig.stack.stopWorker();
    // The bot's tries run out while the Worker is down; its live answer ends on what it says about that.
    await slackComingNote(slack, channel, m.threadTs);
    await releaseHeld(rig.stack.model, hold);
    await rig.stack.restartWorker();

    // The room resumes the turn once the Worker is back and woken (by the bot, or by the room's alarm).
    const replies = await slackDeliveredAfterOutage(slack, m);
    t.answered(replies);
    expect(replies).toHaveLength(1);
    expect(readable(replies[0])).toContain(marker);
    expectNeverTryAgainNorStreamedPlain(channel, m.threadTs);
  });

  it("down mid-answer past the bot's tries, before any words: a note says the answer is coming, and the answer takes its place", async () => {
    const channel = newChannel();
    const marker = `coming-plain-${channel}`;
    const t = turn("Slack mention across a long Worker outage (before the words)");
    const m = await mention(slack, bot, { channel, text: `SLOW:4000 SAY: ${marker}` });
    await expect.poll(() => modelCallsFor(rig.stack, marker), { timeout: 20_000, interval: 20 }).toBe(1);
    await rig.stack.stopWorker();
    const said = await slackComingNote(slack, channel, m.threadTs);
    expect(said.stream).toBeUndefined();
    await rig.stack.restartWorker();

    const replies = await slackDeliveredAfterOutage(slack, m);
    t.answered(replies);
    // The note became the answer: one message in the thread.
    expect(replies).toHaveLength(1);
    expect(replies[0].ts).toBe(said.ts);
    expect(readable(replies[0])).toContain(marker);
    expectNeverTryAgainNorStreamedPlain(channel, m.threadTs);
  });

  it("down mid-answer past the Discord bot's tries, after the first words: the deferred reply says the answer is coming, never to try again, and becomes the answer", async () => {
    const ch = discord.fake.addChannel(discord.guildId, "coming");
    const marker = `discord-coming-${ch}`;
    const hold = `discord-coming-hold-${ch}`;
    const t = turn("Discord /duet ask across a long Worker outage (streaming)");
    const rec = discord.fake.interaction(ch, { subcommand: "ask", options: { prompt: `HOLD:${hold} CHUNK:8 SAY: Let me look at ${marker} for you.` } });
    // The deferred reply shows the first words: the room took the turn.
    await expect.poll(() => replyEdits(discord, rec).some((e) => e.includes("Let me")), { timeout: 20_000, interval: 20 }).toBe(true);
    await rig.stack.stopWorker();
    // The bot's tries run out while the Worker is down; the reply ends on what it says about that.
    await discordComingNote(discord, rec);
    await releaseHeld(rig.stack.model, hold);
    await rig.stack.restartWorker();

    // The room resumes the turn once the Worker is back, and its delivery edits the same reply into the answer.
    await discordDeliveredInReply(discord, rec, ch, `${marker} for you.`, t);
  });

  it("down when the mention arrives and back a moment later: the bot's retry gets the real answer", async () => {
    const channel = newChannel();
    const marker = `down-${channel}`;
    const t = turn("Slack mention while the Worker is down");
    await rig.stack.stopWorker();
    // Something on the Worker's port that drops every connection: the bot's first attempt is seen to fail.
    const port = Number(new URL(rig.stack.workerUrl).port);
    const sockets = new Set<Socket>();
    let attempted!: () => void;
    const firstAttempt = new Promise<void>((resolve) => (attempted = resolve));
    const dropper = createServer((s) => {
      sockets.add(s);
      s.destroy();
      attempted();
    });
    await new Promise<void>((resolve) => dropper.listen(port, "127.0.0.1", resolve));
    const m = await mention(slack, bot, { channel, text: `SAY: ${marker}` });
    await firstAttempt;
    await new Promise((resolve) => dropper.close(resolve));
    await rig.stack.restartWorker();

    const replies = await answerTo(slack, m);
    t.answered(replies);
    expect(readable(replies[0])).toContain(marker);
    expect(readable(replies[0])).not.toMatch(/can't be reached/);
    expect(sockets.size).toBeGreaterThanOrEqual(1);
    expect(modelCallsFor(rig.stack, marker)).toBe(1);
    const { messages } = await rig.stack.client.history(slackRoom(slack.id.teamId, channel));
    expect(messages.map((x) => x.role)).toEqual(["user", "agent"]);
  });
});
