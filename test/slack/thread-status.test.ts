import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { directMessageEvent, type FakeSlack, postEvent } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, mention, newChannel, readable, SIGNING_SECRET, startBot, startSlackSetup } from "./harness.ts";

/**
 * "Duet is working on it…" under the thread while a turn runs
 * (assistant.threads.setStatus), next to the 👀 reaction. The bot renews the
 * status every 300 ms here instead of every 90 s, so a short turn shows renewals.
 */

const WORKING = "is working on it…";

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;
startedForTests(() => startSlackSetup([]), (s) => ({ stack, slack } = s));
beforeAll(async () => {
  bot = await startBot(slack, stack, {}, { statusRenewMs: 300 });
});
afterAll(async () => {
  await bot?.stop();
});

const statusCalls = (channel: string) => slack.calls.filter((c) => c.method === "assistant.threads.setStatus" && c.args.channel_id === channel);

describe("the thread status", () => {
  it("shows while the turn runs, is renewed, and is gone with the answer", async () => {
    const channel = newChannel();
    const m = await mention(slack, bot, { channel, text: "SLOW:2000 SAY: status-check" });
    const replies = await answerTo(slack, m);
    expect(readable(replies[0])).toContain("status-check");

    const shown = slack.ws.statusLog.filter((s) => s.channel === channel && s.threadTs === m.threadTs);
    // Set at once, then renewed every 300 ms for 2 s (about 7); at least one renewal even
    // when a loaded machine's timers drop most of them.
    expect(shown.length).toBeGreaterThanOrEqual(2);
    // Set while working; the live answer's end clears it ("") in case a renewal raced its first post.
    expect(shown.filter((s) => s.status !== "").map((s) => s.status)).toEqual(shown.filter((s) => s.status !== "").map(() => WORKING));
    const firstStatus = slack.calls.findIndex((c) => c.method === "assistant.threads.setStatus" && c.args.channel_id === channel);
    const answer = slack.calls.findIndex((c) => (c.method === "chat.startStream" || c.method === "chat.postMessage") && c.args.channel === channel);
    expect(firstStatus).toBeGreaterThanOrEqual(0);
    expect(firstStatus).toBeLessThan(answer);
    // The answer cleared it, and nothing set it again afterwards.
    expect(slack.ws.statusOf(channel, m.threadTs)).toBeUndefined();
    const settled = statusCalls(channel).length;
    // Barrier: a later answer that takes longer than two renewals; a renewal left running would have landed by its end.
    const later = await mention(slack, bot, { channel: newChannel(), text: "SLOW:700 SAY: barrier" });
    expect(readable((await answerTo(slack, later))[0])).toContain("barrier");
    expect(statusCalls(channel)).toHaveLength(settled);
  });

  it("is not set for a top-level direct message, which is answered outside any thread", async () => {
    const channel = newChannel("D");
    const payload = directMessageEvent(slack, { channel, text: "SAY: dm-no-status" });
    expect((await postEvent(bot.url, payload, { secret: SIGNING_SECRET })).status).toBe(200);
    await slack.waitFor(() => slack.ws.reactionsOn(channel, String(payload.event.ts)).includes("white_check_mark"), "the end mark");
    expect(statusCalls(channel)).toEqual([]);
  });

  it("is gone with the answer even when its call lands after the answer's first post", async () => {
    const channel = newChannel();
    const held = slack.hold("assistant.threads.setStatus");
    let m: Awaited<ReturnType<typeof mention>>;
    try {
      m = await mention(slack, bot, { channel, text: "SAY: status-raced" });
      await held.arrived;
      // Barrier: the answer's stream has started (and Slack cleared the status then) while the status call is still held.
      await slack.waitFor(() => slack.calls.some((c) => c.method === "chat.startStream" && c.args.channel === channel), "the answer's stream");
    } finally {
      held.release();
    }
    expect(readable((await answerTo(slack, m))[0])).toContain("status-raced");
    expect(slack.ws.statusLog.some((s) => s.channel === channel && s.status === WORKING)).toBe(true);
    expect(slack.ws.statusOf(channel, m.threadTs)).toBeUndefined();
  });

  // Last: the refusal stays for the rest of the file.
  it("in a workspace that refuses thread statuses: the answer comes as usual and Duet stops asking", async () => {
    slack.refuse("assistant.threads.setStatus", "unknown_method");
    const channel = newChannel();
    const first = await mention(slack, bot, { channel, text: "SLOW:700 SAY: without-status" });
    expect(readable((await answerTo(slack, first))[0])).toContain("without-status");
    expect(slack.ws.reactionsOn(channel, first.ts)).toContain("white_check_mark");
    expect(statusCalls(channel)).toHaveLength(1);
    const second = await mention(slack, bot, { channel, text: "SLOW:700 SAY: still-without" });
    expect(readable((await answerTo(slack, second))[0])).toContain("still-without");
    expect(statusCalls(channel)).toHaveLength(1);
  });
});
