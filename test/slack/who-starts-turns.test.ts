import { describe, expect, it } from "vitest";
import { directMessageEvent, envelope, type EventEnvelope, type FakeSlack, postEvent } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, mention, modelCallsFor, newChannel, readable, SIGNING_SECRET, startSlackSetup } from "./harness.ts";

/**
 * Only a person's own message starts a turn. Each case is an event as Slack's
 * Events API reference shows it (subtypes, USLACKBOT, bot_id/app_id, the nested
 * `message` of an edit). A person's message sent after them is the barrier:
 * once it is answered, the events before it had their chance to misbehave.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;
startedForTests(() => startSlackSetup(), (s) => ({ stack, slack, bots: [bot] } = s));

const OTHER_APP = { bot_id: "B0OTHER", app_id: "A0OTHER" };

/** A message already in the channel (so a wrong answer could react and reply to it), as the event Slack sends for it. */
function event(channel: string, fields: Record<string, unknown>, kind: "message" | "app_mention", channelType?: string): { payload: EventEnvelope; ts: string } {
  const text = typeof fields.text === "string" ? fields.text : "";
  const user = typeof fields.user === "string" ? fields.user : "U0SOMEONE";
  const { ts } = slack.ws.add({ channel, user, text, via: "user" });
  const payload = envelope(slack, { type: kind, channel, ts, event_ts: ts, team: slack.id.teamId, ...(channelType ? { channel_type: channelType } : {}), ...fields });
  return { payload, ts };
}

async function deliver(events: { payload: EventEnvelope }[]): Promise<void> {
  for (const e of events) expect((await postEvent(bot.url, e.payload, { secret: SIGNING_SECRET })).status).toBe(200);
}

const duetPosts = (channel: string) => slack.ws.everything(channel).filter((m) => m.bot_id === slack.id.botId);

describe("who starts a turn in a Slack DM", () => {
  it("Slackbot, another app, Duet's own post, an edit, a deletion and a join start nothing; a person's file and thread reply do", async () => {
    const dm = newChannel("D");
    const quiet = [
      event(dm, { user: "USLACKBOT", text: "SAY: slackbot-marker" }, "message", "im"),
      event(dm, { subtype: "bot_message", username: "Other", text: "SAY: other-app-marker", ...OTHER_APP }, "message", "im"),
      event(dm, { user: "U0OTHERBOT", text: "SAY: other-app-user-marker", bot_profile: { id: "B0OTHER", name: "Other" }, ...OTHER_APP }, "message", "im"),
      event(dm, { user: slack.id.botUserId, bot_id: slack.id.botId, app_id: slack.id.appId, text: "SAY: own-marker" }, "message", "im"),
      event(dm, {
        subtype: "message_changed",
        hidden: true,
        message: { type: "message", user: "U0ALICE", text: "SAY: edited-marker", edited: { user: "U0ALICE", ts: "1.1" }, ts: "1.0" },
        previous_message: { type: "message", user: "U0ALICE", text: "SAY: before", ts: "1.0" },
      }, "message", "im"),
      event(dm, { subtype: "message_deleted", hidden: true, deleted_ts: "1.0", previous_message: { type: "message", user: "U0ALICE", text: "SAY: deleted-marker", ts: "1.0" } }, "message", "im"),
      event(dm, { subtype: "channel_join", user: "U0BOB", text: "<@U0BOB> has joined the channel" }, "message", "im"),
    ];
    await deliver(quiet);

    const file = directMessageEvent(slack, { channel: dm, text: "SAY: file-marker", subtype: "file_share" });
    Object.assign(file.event, { files: [{ id: "F0NOTES", name: "notes.txt", mimetype: "text/plain" }], upload: false });
    await deliver([{ payload: file }]);
    const fileTs = String(file.event.ts);
    await answerTo(slack, { channel: dm, ts: fileTs, threadTs: fileTs });
    const inThread = directMessageEvent(slack, { channel: dm, text: "SAY: thread-reply-marker", threadTs: fileTs });
    Object.assign(inThread.event, { parent_user_id: "U0ALICE" });
    await deliver([{ payload: inThread }]);
    const replyTs = String(inThread.event.ts);
    await answerTo(slack, { channel: dm, ts: replyTs, threadTs: fileTs });

    // The shared file has no download link here, so Duet says it could not fetch it, then answers the message.
    const kindOf = (t: string) => (t.includes("thread-reply-marker") ? "thread" : t.includes("file-marker") ? "file" : t.includes("could not fetch `notes.txt`") ? "file-note" : t);
    expect(duetPosts(dm).map(readable).map(kindOf)).toEqual([
      "file-note",
      "file",
      "thread",
    ]);
    for (const marker of ["slackbot", "other-app", "other-app-user", "own", "edited", "deleted"]) expect(modelCallsFor(stack, `SAY: ${marker}-marker`)).toBe(0);
    expect(modelCallsFor(stack, "has joined the channel")).toBe(0);
    for (const e of quiet) expect(slack.ws.reactionsOn(dm, e.ts)).toEqual([]);
  });

  it("Slack's own system notice (user USLACK) starts nothing; the person's message after it is the one answered", async () => {
    const dm = newChannel("D");
    const callsBefore = stack.model.calls.length;
    const archived = `<@U0ALICE> archived the channel <#${newChannel()}>`;
    const notice = event(dm, {
      user: "USLACK",
      text: archived,
      blocks: [{ type: "rich_text", block_id: "sys", elements: [{ type: "rich_text_section", elements: [{ type: "user", user_id: "U0ALICE" }, { type: "text", text: " archived the channel" }] }] }],
    }, "message", "im");
    await deliver([notice]);

    const person = directMessageEvent(slack, { channel: dm, text: "SAY: after-notice-marker" });
    await deliver([{ payload: person }]);
    const ts = String(person.event.ts);
    await answerTo(slack, { channel: dm, ts, threadTs: ts });

    expect(duetPosts(dm).map(readable)).toEqual([expect.stringContaining("after-notice-marker")]);
    expect(stack.model.calls.length - callsBefore).toBe(1);
    expect(modelCallsFor(stack, "archived the channel")).toBe(0);
    expect(slack.ws.reactionsOn(dm, notice.ts)).toEqual([]);
  });
});

describe("who starts a turn in a Slack channel", () => {
  it("Slackbot's reminder, another app's mention, Duet's own mention, a join and an edit start nothing; a person's mention does", async () => {
    const channel = newChannel();
    const mentionText = (rest: string) => `<@${slack.id.botUserId}> ${rest}`;
    const quiet = [
      event(channel, { user: "USLACKBOT", text: `Reminder: ${mentionText("SAY: reminder-marker")}` }, "app_mention"),
      event(channel, { user: "U0OTHERBOT", text: mentionText("SAY: other-app-marker"), ...OTHER_APP }, "app_mention"),
      event(channel, { user: slack.id.botUserId, bot_id: slack.id.botId, app_id: slack.id.appId, text: mentionText("SAY: own-marker") }, "app_mention"),
      event(channel, { subtype: "channel_join", user: "U0BOB", text: `<@U0BOB> has joined the channel, invited by ${mentionText("")}` }, "app_mention"),
      event(channel, {
        subtype: "message_changed",
        hidden: true,
        message: { type: "message", user: "U0ALICE", text: mentionText("SAY: edited-marker"), ts: "1.0" },
      }, "message", "channel"),
    ];
    await deliver(quiet);

    const person = await mention(slack, bot, { channel, text: "SAY: person-marker" });
    const [answer] = await answerTo(slack, person);
    expect(readable(answer)).toContain("person-marker");
    expect(duetPosts(channel)).toHaveLength(1);
    for (const marker of ["reminder", "other-app", "own", "edited"]) expect(modelCallsFor(stack, `SAY: ${marker}-marker`)).toBe(0);
    expect(modelCallsFor(stack, "has joined the channel")).toBe(0);
    for (const e of quiet) expect(slack.ws.reactionsOn(channel, e.ts)).toEqual([]);
  });
});
