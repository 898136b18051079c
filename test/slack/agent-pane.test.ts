import { PANE_WORDS } from "@duet/shared";
import { randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { directMessageEvent, type FakeSlack, paneThreadStarted, postEvent } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, botReplies, modelCallsFor, newChannel, readable, repeatWatcher, SIGNING_SECRET, startBot, startSlackSetup } from "./harness.ts";

/**
 * Slack's agent pane through the real bolt app (bolt's Assistant), the fake
 * Slack and the real Worker, with two replicas: a new conversation offers the
 * configured prompts; a message in it is answered in that conversation, in a
 * room of its own, with a status naming the command while it runs, cleared
 * at the end; the conversation is titled once, from its first ask; a message
 * both replicas receive is answered once.
 */

const PROMPTS = [
  { title: "Run the tests", message: "Run npm test and tell me what fails" },
  { title: "Disk use", message: "SAY: disk <run>df -h .</run>" },
];
const PROMPTS_VAR = PROMPTS.map((p) => `${p.title} = ${p.message}`).join(" | ");

let stack: Stack;
let slack: FakeSlack;
let a: BotHandle;
let b: BotHandle;
const watch = repeatWatcher();
// Answers left unconfirmed for a second are offered to the bots' outbox (15 s in production).
startedForTests(() => startSlackSetup([], { vars: { DUET_DELIVERY_GRACE_MS: "1000" } }), (s) => ({ stack, slack } = s));
beforeAll(async () => {
  const env = { SLACK_SUGGESTED_PROMPTS: PROMPTS_VAR, SLACK_REPLICAS: "many" };
  [a, b] = [await startBot(slack, stack, env, { logger: watch.logger }), await startBot(slack, stack, env, { logger: watch.logger })];
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
});

const paneRoom = (channel: string, threadTs: string) => `slack-${slack.id.teamId}-${channel}-${threadTs}`;
const paneThread = (channel: string, threadTs: string) => slack.ws.assistantThreads.get(`${channel}/${threadTs}`);

/** The person opens a new conversation in the pane (through `bot`); resolves once Duet has offered its prompts. */
async function openConversation(bot: BotHandle): Promise<{ channel: string; threadTs: string }> {
  const channel = newChannel("D");
  const { payload, threadTs } = paneThreadStarted(slack, { channel, viewing: "C0GENERAL" });
  expect((await postEvent(bot.url, payload, { secret: SIGNING_SECRET })).status).toBe(200);
  await slack.waitFor(() => paneThread(channel, threadTs)?.prompts, "the suggested prompts");
  return { channel, threadTs };
}

/** A message in the conversation, as Slack sends it: a DM in the conversation's thread. */
function paneMessage(place: { channel: string; threadTs: string }, text: string) {
  const payload = directMessageEvent(slack, { channel: place.channel, threadTs: place.threadTs, text });
  return { payload, ts: String(payload.event.ts) };
}

describe("Slack's agent pane", () => {
  it("offers the configured prompts when a conversation starts", async () => {
    const { channel, threadTs } = await openConversation(a);
    expect(paneThread(channel, threadTs)).toMatchObject({ prompts: PROMPTS, promptsTitle: PANE_WORDS.promptsTitle, titles: [] });
    expect(slack.callsOf("assistant.threads.setSuggestedPrompts").filter((c) => c.args.channel_id === channel)).toHaveLength(1);
  });

  it("answers in the conversation, naming the running command in the status, titled once from the first ask, the status cleared at the end", async () => {
    const place = await openConversation(a);
    const gate = join(tmpdir(), `duet-pane-gate-${randomBytes(4).toString("hex")}`);
    const command = `while [ ! -e ${gate} ]; do sleep 0.05; done; echo pane-ran`;
    const firstAsk = `SAY: Checking the gate <run>${command}</run>`;
    const first = paneMessage(place, firstAsk);
    try {
      expect((await postEvent(a.url, first.payload, { secret: SIGNING_SECRET })).status).toBe(200);
      // The command waits for the gate, which only this test opens: the status is read while it runs.
      const running = await slack.waitFor(() => (slack.ws.statusOf(place.channel, place.threadTs)?.includes("pane-ran") ? slack.ws.statusOf(place.channel, place.threadTs) : undefined), "the status naming the command");
      expect(running).toBe(PANE_WORDS.running(command));
      expect(slack.ws.statusLog.find((s) => s.threadTs === place.threadTs && s.status === running)?.loading).toEqual([running]);
      expect(slack.ws.reactionsOn(place.channel, first.ts)).not.toContain("white_check_mark");
      writeFileSync(gate, "");
      const answers = await answerTo(slack, { channel: place.channel, ts: first.ts, threadTs: place.threadTs });
      expect(answers).toHaveLength(1);
      expect(readable(answers[0])).toContain("Checking the gate");
      expect(readable(answers[0])).toContain("pane-ran");
    } finally {
      rmSync(gate, { force: true });
    }
    // Cleared at the end: the last status set under the conversation is none.
    expect(slack.ws.statusOf(place.channel, place.threadTs)).toBeUndefined();
    expect(slack.ws.statusLog.filter((s) => s.threadTs === place.threadTs).at(-1)?.status).toBe("");

    const second = paneMessage(place, "SAY: second-ask");
    expect((await postEvent(a.url, second.payload, { secret: SIGNING_SECRET })).status).toBe(200);
    const after = await answerTo(slack, { channel: place.channel, ts: second.ts, threadTs: place.threadTs });
    expect(readable(after.at(-1)!)).toContain("second-ask");
    expect(paneThread(place.channel, place.threadTs)?.titles).toEqual([PANE_WORDS.title(firstAsk)]);
    expect(slack.callsOf("assistant.threads.setTitle").filter((c) => c.args.channel_id === place.channel)).toHaveLength(1);
    // A room of its own: both asks in the conversation's room, none in the DM's.
    expect((await stack.client.history(paneRoom(place.channel, place.threadTs))).messages).toHaveLength(4);
    expect((await stack.client.history(`slack-${slack.id.teamId}-${place.channel}`)).messages).toEqual([]);
  });

  it("titles the conversation from its first ask when the answer comes through the outbox (its bot died before answering)", async () => {
    const place = await openConversation(a);
    const marker = `pane-outbox-${Date.now()}`;
    // The person's first ask, which reached a bot that died before it answered: the room kept the answer for the outbox.
    const ask = paneMessage(place, `SAY: ${marker}`);
    const answered = await stack.client.message(paneRoom(place.channel, place.threadTs), {
      text: `SAY: ${marker}`,
      userId: String(ask.payload.event.user),
      idempotencyKey: String(ask.payload.event_id),
      deliver: { platform: "slack", place: { channel: place.channel, threadTs: place.threadTs, ts: ask.ts, pane: "1" } },
    });
    expect(answered.reply).toContain(marker);
    const [answer] = await answerTo(slack, { channel: place.channel, ts: ask.ts, threadTs: place.threadTs });
    expect(readable(answer)).toContain(marker);
    await slack.waitFor(() => paneThread(place.channel, place.threadTs)?.titles[0], "the conversation's title");
    expect(paneThread(place.channel, place.threadTs)?.titles).toEqual([PANE_WORDS.title(`SAY: ${marker}`)]);
  });

  it("answers a message both replicas receive once", async () => {
    const place = await openConversation(b);
    const msg = paneMessage(place, "SAY: pane-replicas-once");
    await Promise.all([postEvent(a.url, msg.payload, { secret: SIGNING_SECRET }), postEvent(b.url, msg.payload, { secret: SIGNING_SECRET, retryNum: 1 })]);
    await answerTo(slack, { channel: place.channel, ts: msg.ts, threadTs: place.threadTs });
    await expect.poll(() => watch.skipped.filter((id) => id === msg.payload.event_id).length, { timeout: 20_000, interval: 20 }).toBe(1);
    // Barrier: a later message in the same conversation, answered after the repeat was skipped.
    const later = paneMessage(place, "SAY: pane-replicas-later");
    await postEvent(b.url, later.payload, { secret: SIGNING_SECRET });
    await answerTo(slack, { channel: place.channel, ts: later.ts, threadTs: place.threadTs });
    expect(modelCallsFor(stack, "pane-replicas-once")).toBe(1);
    expect(botReplies(slack, place.channel, place.threadTs).filter((m) => readable(m).includes("pane-replicas-once"))).toHaveLength(1);
    expect(paneThread(place.channel, place.threadTs)?.titles).toEqual([PANE_WORDS.title("SAY: pane-replicas-once")]);
    expect(slack.ws.statusOf(place.channel, place.threadTs)).toBeUndefined();
  });
});
