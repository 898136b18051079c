import { EMPTY_MENTION_HINT } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { envelope, type FakeSlack, postEvent, userMessage } from "../fakes/slack/index.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, botReplies, fencesBalanced, mention, modelCallsFor, newChannel, readable, sectionTexts, SIGNING_SECRET, startSlackSetup } from "./harness.ts";

/**
 * Mentions end to end: the real bolt app (HTTP mode, signed requests) against the
 * fake Slack, and the real Worker in workerd with the fake model and executor.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;
let threadBot: BotHandle;

startedForTests(() => startSlackSetup([{}, { DUET_SLACK_ROOM_SCOPE: "thread" }]), (s) => ({ stack, slack, bots: [bot, threadBot] } = s));

describe("a mention", () => {
  it("is acked at once, shows 👀 while working, answers in a new thread with the command's output, then ✅", async () => {
    const channel = newChannel();
    // The model holds its answer, so the ack and the 👀 provably come before it.
    const m = await mention(slack, bot, { channel, text: "SLOW:1500 SAY: Listing <run>echo hello-from-sandbox</run>" });
    expect(m.delivery.status).toBe(200);
    await slack.waitFor(() => slack.ws.reactionsOn(channel, m.ts).includes("eyes"), "the working reaction");
    expect(botReplies(slack, channel, m.ts)).toEqual([]);

    const replies = await answerTo(slack, m);
    expect(replies).toHaveLength(1);
    const text = readable(replies[0]);
    expect(text).toContain("Listing");
    expect(text).toContain("`$ echo hello-from-sandbox`");
    expect(text).toMatch(/exit 0/);
    expect(text).toMatch(/```\nhello-from-sandbox\n```/);
    // The reply went into the thread of the mention, not the channel.
    expect(replies[0].thread_ts).toBe(m.ts);
    expect(slack.ws.reactionsOn(channel, m.ts)).toEqual(["eyes", "white_check_mark"]);
  });

  it("passes the text without the mention, and the user id, to the Worker", async () => {
    const channel = newChannel();
    const m = await mention(slack, bot, { channel, text: "SAY: noted <b>&amp;</b>", user: "U0BOB" });
    await answerTo(slack, m);
    const history = await stack.client.history(`slack-${slack.id.teamId}-${channel}`);
    expect(history.messages[0]).toMatchObject({ role: "user", userId: "U0BOB", text: "SAY: noted <b>&amp;</b>" });
  });

  it("in a thread uses the channel's room and answers in that thread", async () => {
    const channel = newChannel();
    const first = await mention(slack, bot, { channel, text: "SAY: first-in-channel" });
    await answerTo(slack, first);
    const parent = userMessage(slack, channel, "a discussion");
    const inThread = await mention(slack, bot, { channel, text: "SAY: second-in-thread", threadTs: parent });
    const replies = await answerTo(slack, inThread);
    expect(replies.map(readable).join("\n")).toContain("second-in-thread");
    expect(replies[0].thread_ts).toBe(parent);
    const room = await stack.client.history(`slack-${slack.id.teamId}-${channel}`);
    expect(room.messages.filter((x) => x.role === "user").map((x) => x.text)).toEqual(["SAY: first-in-channel", "SAY: second-in-thread"]);
  });

  it("in a thread uses the thread's own room under DUET_SLACK_ROOM_SCOPE=thread", async () => {
    const channel = newChannel();
    const parent = userMessage(slack, channel, "topic A");
    const m = await mention(slack, threadBot, { channel, text: "SAY: thread-scoped", threadTs: parent });
    await answerTo(slack, m);
    const threadRoom = await stack.client.history(`slack-${slack.id.teamId}-${channel}-${parent}`);
    expect(threadRoom.messages.map((x) => x.text)).toContain("SAY: thread-scoped");
    const channelRoom = await stack.client.history(`slack-${slack.id.teamId}-${channel}`);
    expect(channelRoom.messages).toEqual([]);
  });
});

describe("long answers", () => {
  it("show head and tail inline and upload the whole output to the thread as a file", async () => {
    const channel = newChannel();
    const m = await mention(slack, bot, { channel, text: "SAY: Counting <run>seq 1 10000</run>" });
    const replies = await answerTo(slack, m);
    const answer = replies.find((r) => r.via !== "files.completeUploadExternal");
    expect(answer).toBeDefined();
    const sections = sectionTexts(answer!);
    for (const s of sections) {
      expect(s.length).toBeLessThanOrEqual(3000);
      expect(fencesBalanced(s)).toBe(true);
    }
    const shown = sections.join("\n");
    expect(shown).toMatch(/```\n1\n2\n3\n/);
    expect(shown).toContain("9999\n10000\n```");
    expect(shown).toMatch(/omitted; full output in duet-output-1\.txt/);
    expect(shown).toContain("`duet-output-1.txt`");

    const upload = replies.find((r) => r.via === "files.completeUploadExternal");
    expect(upload?.thread_ts).toBe(m.ts);
    const file = upload!.files![0];
    expect(file.filename).toBe("duet-output-1.txt");
    const content = file.content!.toString("utf8");
    expect(content.startsWith("$ seq 1 10000\n1\n2\n")).toBe(true);
    expect(content.trimEnd().endsWith("\n9999\n10000")).toBe(true);
    expect(content.trimEnd().split("\n")).toHaveLength(10001);
  });

  it("split a long explanation into sections without cutting a code fence", async () => {
    const channel = newChannel();
    const code = Array.from({ length: 260 }, (_, i) => `line ${i} of a long listing`).join("\n");
    const m = await mention(slack, bot, { channel, text: `SAY: Here is the file:\n\`\`\`ts\n${code}\n\`\`\`\nThat is all.` });
    const [answer] = await answerTo(slack, m);
    const sections = sectionTexts(answer);
    expect(sections.length).toBeGreaterThan(1);
    for (const s of sections) {
      expect(s.length).toBeLessThanOrEqual(3000);
      expect(fencesBalanced(s)).toBe(true);
    }
    const joined = sections.join("\n");
    expect(joined).toContain("line 0 of a long listing");
    expect(joined).toContain("line 259 of a long listing");
    expect(joined).toContain("That is all.");
  });
});

describe("what a mention never does", () => {
  it("answers another bot's mention, or its own", async () => {
    const channel = newChannel();
    const fromBot = await mention(slack, bot, { channel, text: "SAY: bot-loop-marker", botId: "B0OTHER", user: "U0OTHERBOT" });
    const fromSelf = await mention(slack, bot, { channel, text: "SAY: self-loop-marker", user: slack.id.botUserId });
    expect(fromBot.delivery.status).toBe(200);
    expect(fromSelf.delivery.status).toBe(200);
    // A person's mention afterwards is answered; by then the bots' would have been too.
    const person = await mention(slack, bot, { channel, text: "SAY: person-marker" });
    await answerTo(slack, person);
    expect(modelCallsFor(stack, "bot-loop-marker")).toBe(0);
    expect(modelCallsFor(stack, "self-loop-marker")).toBe(0);
    expect(botReplies(slack, channel, fromBot.ts)).toEqual([]);
    expect(slack.ws.reactionsOn(channel, fromBot.ts)).toEqual([]);
  });

  it("calls the Worker for an empty mention (it asks what to do instead)", async () => {
    const channel = newChannel();
    const m = await mention(slack, bot, { channel, text: "" });
    const [reply] = await answerTo(slack, m);
    expect(readable(reply)).toContain(EMPTY_MENTION_HINT);
    const room = await stack.client.history(`slack-${slack.id.teamId}-${channel}`);
    expect(room.messages).toEqual([]);
  });
});

describe("being invited to a channel", () => {
  it("Duet says hello once, with how to use it; other people joining get nothing", async () => {
    const channel = newChannel();
    const joined = envelope(slack, { type: "member_joined_channel", user: slack.id.botUserId, channel, channel_type: "C", team: slack.id.teamId, inviter: "U0ALICE" });
    const someoneElse = envelope(slack, { type: "member_joined_channel", user: "U0BOB", channel, channel_type: "C", team: slack.id.teamId });
    for (const [payload, retry] of [[joined, 0], [joined, 1], [someoneElse, 0]] as const) {
      expect((await postEvent(bot.url, payload, { secret: SIGNING_SECRET, ...(retry ? { retryNum: retry } : {}) })).status).toBe(200);
    }
    // The barrier: Duet invited to another channel afterwards, greeted after anything the events above caused.
    const barrier = newChannel();
    const later = envelope(slack, { type: "member_joined_channel", user: slack.id.botUserId, channel: barrier, channel_type: "C", team: slack.id.teamId });
    expect((await postEvent(bot.url, later, { secret: SIGNING_SECRET })).status).toBe(200);
    await slack.waitFor(() => slack.ws.channel(barrier).some((m) => m.bot_id === slack.id.botId), "the barrier's welcome");
    const posted = slack.ws.channel(channel).filter((m) => m.bot_id === slack.id.botId);
    expect(posted).toHaveLength(1);
    expect(readable(posted[0])).toContain("Hi, I'm Duet");
    expect(readable(posted[0])).toContain("/duet help");
  });

  it("a malformed join event is acked and ignored, and the next one is still handled", async () => {
    const [bad, good] = [newChannel(), newChannel()];
    const malformed = envelope(slack, { type: "member_joined_channel", channel: bad });
    expect((await postEvent(bot.url, malformed, { secret: SIGNING_SECRET })).status).toBe(200);
    const joined = envelope(slack, { type: "member_joined_channel", user: slack.id.botUserId, channel: good, channel_type: "C" });
    expect((await postEvent(bot.url, joined, { secret: SIGNING_SECRET })).status).toBe(200);
    await slack.waitFor(() => slack.ws.channel(good).some((m) => m.bot_id === slack.id.botId), "the welcome");
    expect(slack.ws.channel(bad)).toEqual([]);
  });
});
