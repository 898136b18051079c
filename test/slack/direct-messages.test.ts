import { EMPTY_DM_HINT } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { directMessageEvent, type FakeSlack, postEvent } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { type BotHandle, modelCallsFor, newChannel, readable, SIGNING_SECRET, startSlackSetup } from "./harness.ts";

/**
 * Direct messages to Duet (its Messages tab): no mention needed, the DM is the
 * person's own room. Through the real bolt app, the fake Slack and the real Worker.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;
let threadBot: BotHandle;
startedForTests(() => startSlackSetup([{}, { DUET_SLACK_ROOM_SCOPE: "thread" }]), (s) => ({ stack, slack, bots: [bot, threadBot] } = s));

const dmRoom = (dm: string, thread?: string) => `slack-${slack.id.teamId}-${dm}${thread ? `-${thread}` : ""}`;

/** Sends a DM and waits for its end mark; returns the event and Duet's messages posted since. */
async function dm(to: BotHandle, input: { channel: string; text: string; threadTs?: string }) {
  const before = new Set(slack.ws.everything(input.channel).map((m) => m.ts));
  const payload = directMessageEvent(slack, input);
  const delivery = await postEvent(to.url, payload, { secret: SIGNING_SECRET });
  const ts = String(payload.event.ts);
  await slack.waitFor(() => {
    const r = slack.ws.reactionsOn(input.channel, ts);
    return r.includes("white_check_mark") || r.includes("warning");
  }, `the end mark on DM ${ts}`);
  const answers = slack.ws.everything(input.channel).filter((m) => m.bot_id === slack.id.botId && !before.has(m.ts));
  return { delivery, payload, ts, answers };
}

describe("a direct message", () => {
  it("is answered in the DM itself, with the command's output and the working/done marks", async () => {
    const channel = newChannel("D");
    const { delivery, ts, answers } = await dm(bot, { channel, text: "SAY: Looking <run>echo from-dm</run>" });
    expect(delivery.status).toBe(200);
    expect(answers).toHaveLength(1);
    expect(answers[0].thread_ts).toBeUndefined();
    expect(readable(answers[0])).toContain("Looking");
    expect(readable(answers[0])).toContain("from-dm");
    expect(slack.ws.reactionsOn(channel, ts)).toEqual(expect.arrayContaining(["eyes", "white_check_mark"]));
    const { messages } = await stack.client.history(dmRoom(channel));
    expect(messages.map((m) => `${m.role}:${m.userId ?? ""}`)).toEqual(["user:U0ALICE", "agent:"]);
  });

  it("keeps one room per DM, so the next message is part of the same conversation", async () => {
    const channel = newChannel("D");
    await dm(bot, { channel, text: "SAY: first <run>echo kept > note.txt</run>" });
    const { answers } = await dm(bot, { channel, text: "SAY: second <run>cat note.txt</run>" });
    expect(readable(answers[0])).toContain("kept");
    expect((await stack.client.history(dmRoom(channel))).messages).toHaveLength(4);
  });

  it("in a thread of the DM is answered in that thread", async () => {
    const channel = newChannel("D");
    const parent = await dm(bot, { channel, text: "SAY: top" });
    const { answers } = await dm(bot, { channel, text: "SAY: in-thread", threadTs: parent.ts });
    expect(answers).toHaveLength(1);
    expect(answers[0].thread_ts).toBe(parent.ts);
    expect(readable(answers[0])).toContain("in-thread");
  });

  it("under the thread scope: top-level DMs share the DM's room, a thread gets its own", async () => {
    const channel = newChannel("D");
    const first = await dm(threadBot, { channel, text: "SAY: one" });
    await dm(threadBot, { channel, text: "SAY: two" });
    await dm(threadBot, { channel, text: "SAY: three", threadTs: first.ts });
    expect((await stack.client.history(dmRoom(channel))).messages).toHaveLength(4);
    expect((await stack.client.history(dmRoom(channel, first.ts))).messages).toHaveLength(2);
  });

  it("that is empty after cleaning gets a hint, not a turn", async () => {
    const channel = newChannel("D");
    const { answers } = await dm(bot, { channel, text: "  \u200b " });
    expect(readable(answers[0])).toContain(EMPTY_DM_HINT);
    expect((await stack.client.history(dmRoom(channel))).messages).toEqual([]);
  });

  it("is answered once when Slack delivers it three times", async () => {
    const channel = newChannel("D");
    const marker = `dm-retry-${channel}`;
    const payload = directMessageEvent(slack, { channel, text: `SAY: ${marker} <run>echo ran >> runs.txt</run>` });
    const deliveries = await Promise.all([0, 1, 2].map((n) => postEvent(bot.url, payload, { secret: SIGNING_SECRET, ...(n ? { retryNum: n } : {}) })));
    expect(deliveries.map((d) => d.status)).toEqual([200, 200, 200]);
    const ts = String(payload.event.ts);
    await slack.waitFor(() => slack.ws.reactionsOn(channel, ts).includes("white_check_mark"), "the end mark");
    expect(slack.ws.everything(channel).filter((m) => m.bot_id === slack.id.botId)).toHaveLength(1);
    expect(modelCallsFor(stack, marker)).toBe(1);
  });
});

describe("a DM event Duet cannot read", () => {
  it("a malformed DM event is acked and ignored", async () => {
    const payload = directMessageEvent(slack, { channel: newChannel("D"), text: "SAY: x" });
    delete (payload.event as Record<string, unknown>).channel;
    expect((await postEvent(bot.url, payload, { secret: SIGNING_SECRET })).status).toBe(200);
    const next = await dm(bot, { channel: newChannel("D"), text: "SAY: fine" });
    expect(readable(next.answers[0])).toContain("fine");
  });
});
