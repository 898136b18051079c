import { applyLiveEvent, CHANNEL_MESSAGE_INTERVAL_MS, ChannelPace, emptyLiveAnswer, type LiveAnswer, type MessageResponse, type TurnStreamEvent } from "@duet/shared";
import { createLogger, LIVE_INTERVAL_MS, LogLevel, renderAnswer, SlackLiveMessage, SlackOut, STOP_ACTION_ID, webApi } from "@duet/slack";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ApiCall, type FakeSlack, startFakeSlack, userMessage } from "../fakes/slack/index.ts";
import { sleep } from "../fakes/http.ts";
import { liveCalls, newChannel } from "./harness.ts";

/**
 * A live answer in the fake Slack, through bolt's own Web API client: the
 * events of a slow answer arrive over about four seconds, as the Worker's stream
 * delivers them, and the fake records when each call arrived. Spacing is read
 * from those records, never from the test's clock.
 */

let slack: FakeSlack;
let client: webApi.WebClient;
let out: SlackOut;
const logger = createLogger(process.env.DUET_TEST_LOG ? LogLevel.DEBUG : LogLevel.ERROR);

beforeAll(async () => {
  slack = await startFakeSlack();
  client = new webApi.WebClient(slack.id.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true, logger });
  out = new SlackOut(client, logger, new ChannelPace({ intervalMs: CHANNEL_MESSAGE_INTERVAL_MS }));
});
beforeEach(() => {
  slack.streams.lifetimeMs = 5 * 60_000;
  slack.streams.refused = null;
});
afterAll(async () => {
  await slack?.close();
});

const words = "Let me check what is in the repository and then build it for you step by step".split(" ");

/** The events of a slow answer: a word every `everyMs`, with two commands in the middle. */
async function slowAnswer(live: SlackLiveMessage, everyMs = 250): Promise<{ answer: LiveAnswer; firstTokenAt: number }> {
  let answer = emptyLiveAnswer();
  let firstTokenAt = 0;
  const feed = (e: TurnStreamEvent) => {
    answer = applyLiveEvent(answer, e);
    live.update(answer);
  };
  for (const [i, word] of words.entries()) {
    if (i === 0) firstTokenAt = Date.now();
    feed({ event: "text", data: { delta: `${word} ` } });
    if (i === 8) feed({ event: "run-start", data: { index: 0, cmd: "ls" } });
    if (i === 14) feed({ event: "run-end", data: { index: 0, cmd: "ls", exitCode: 0, durationMs: 840, stdout: "README.md\n", stderr: "", truncated: false } });
    await sleep(everyMs);
  }
  return { answer, firstTokenAt };
}

/** An answer whose command `make` is running. */
const building = (): LiveAnswer => applyLiveEvent(applyLiveEvent(emptyLiveAnswer(), { event: "text", data: { delta: "Building. " } }), { event: "run-start", data: { index: 0, cmd: "make" } });
/** The same answer once `make` has ended. */
const made = (answer: LiveAnswer): LiveAnswer => applyLiveEvent(answer, { event: "run-end", data: { index: 0, cmd: "make", exitCode: 0, durationMs: 120, stdout: "ok\n", stderr: "", truncated: false } });

function finalOf(answer: LiveAnswer): MessageResponse {
  const runs = answer.runs.flatMap((r) => (r.state === "done" ? [r.result] : []));
  return { reply: answer.text, explanation: answer.text.trim(), messages: [], runs };
}

function place(channel: string, parent: string) {
  return { channel, threadTs: parent, recipientUserId: "U0ALICE", recipientTeamId: slack.id.teamId, room: `slack-${slack.id.teamId}-${channel}` };
}

const callsIn = (channel: string, method: string): ApiCall[] => slack.callsOf(method).filter((c) => c.args.channel === channel);

/** Gaps between consecutive accepted calls, as the fake recorded their arrival. */
function gaps(calls: ApiCall[]): number[] {
  const ok = calls.filter((c) => c.status === 200);
  return ok.slice(1).map((c, i) => c.at - ok[i].at);
}

/** Every accepted call at least the interval after the one before, and at least two of them: no calls would prove nothing. */
function expectSpaced(calls: ApiCall[]): void {
  const between = gaps(calls);
  expect(between.length).toBeGreaterThan(0);
  expect(Math.min(...between)).toBeGreaterThanOrEqual(LIVE_INTERVAL_MS);
}

describe("a live answer in Slack", () => {
  it("streams into the thread soon after the first token, grows at least 3 times, and ends as the non-streamed answer", async () => {
    const channel = newChannel();
    const parent = userMessage(slack, channel, "build it");
    const live = new SlackLiveMessage(client, out, logger, place(channel, parent), { streaming: true });
    const { answer, firstTokenAt } = await slowAnswer(live);
    const rendered = renderAnswer(finalOf(answer));
    const ts = await live.finish(rendered);

    const [start] = callsIn(channel, "chat.startStream");
    expect(start.args).toMatchObject({ recipient_user_id: "U0ALICE", recipient_team_id: slack.id.teamId, thread_ts: parent });
    expect(start.at - firstTokenAt).toBeLessThan(LIVE_INTERVAL_MS);
    const appends = callsIn(channel, "chat.appendStream");
    expect(appends.length).toBeGreaterThanOrEqual(3);
    const [msg] = slack.ws.thread(channel, parent);
    expect(msg.ts).toBe(ts);
    // The command showed as running, then as complete with its status.
    const taskLog = msg.stream!.appends.flatMap((a) => a.tasks);
    expect(taskLog).toEqual(["run-0:in_progress", "run-0:complete"]);
    expect(msg.stream!.tasks[0]).toMatchObject({ title: "$ ls", status: "complete", details: "exit 0 · 840 ms" });
    // The Stop button streamed first and named the room.
    expect(JSON.stringify(start.args.chunks)).toContain(STOP_ACTION_ID);
    expect(msg.text).toBe(rendered.text);
    expect(msg.blocks).toEqual(rendered.blocks);
    expect(msg.stream!.open).toBe(false);
    // The first append follows the start as soon as it ended; from it on, one a second.
    expectSpaced(appends);
  });

  it("a command that ends just before the answer does still shows complete in the stream: the stream's stop carries it", async () => {
    const channel = newChannel();
    const parent = userMessage(slack, channel, "build it");
    const live = new SlackLiveMessage(client, out, logger, place(channel, parent), { streaming: true });
    let answer = building();
    live.update(answer);
    await slack.waitFor(() => callsIn(channel, "chat.startStream").length > 0, "the stream's start");
    // The command's end and the final answer both land within one interval: the final state supersedes the live one.
    answer = made(answer);
    live.update(answer);
    await live.finish(renderAnswer(finalOf(answer)));

    const [msg] = slack.ws.thread(channel, parent);
    expect(msg.stream!.tasks).toMatchObject([{ title: "$ make", status: "complete", details: "exit 0 · 120 ms" }]);
    expect(callsIn(channel, "chat.appendStream")).toHaveLength(0);
    expect(msg.stream!.open).toBe(false);
  });

  it("puts the final message in place as soon as the answer is complete, without waiting out the second after the last live call", async () => {
    for (const refused of [null, "feature_not_enabled"]) {
      slack.streams.refused = refused;
      const channel = newChannel();
      const parent = userMessage(slack, channel, "build it");
      const live = new SlackLiveMessage(client, out, logger, place(channel, parent), { streaming: true });
      let answer = building();
      live.update(answer);
      const first = refused ? "chat.postMessage" : "chat.startStream";
      const [shown] = await slack.waitFor(() => (callsIn(channel, first).length ? callsIn(channel, first) : null), "the live answer's first call");
      answer = made(answer);
      live.update(answer);
      const rendered = renderAnswer(finalOf(answer));
      await live.finish(rendered);
      const [final] = callsIn(channel, "chat.update").filter((c) => !liveCalls([c]).length);
      // The fake's own arrival times: the final message did not wait for the live interval to pass.
      expect(final.at - shown.at, `streaming ${refused ?? "on"}`).toBeLessThan(LIVE_INTERVAL_MS);
      expect(liveCalls(callsIn(channel, "chat.update"))).toHaveLength(0);
      const [msg] = slack.ws.thread(channel, parent);
      expect([msg.text, msg.blocks]).toEqual([rendered.text, rendered.blocks]);
    }
  });

  it("where streaming is refused, posts and updates the message at most once a second, and ends as the non-streamed answer", async () => {
    slack.streams.refused = "feature_not_enabled";
    const channel = newChannel();
    const parent = userMessage(slack, channel, "build it");
    const live = new SlackLiveMessage(client, out, logger, place(channel, parent), { streaming: true });
    const { answer, firstTokenAt } = await slowAnswer(live);
    const rendered = renderAnswer(finalOf(answer));
    await live.finish(rendered);

    const [posted] = callsIn(channel, "chat.postMessage");
    expect(posted.at - firstTokenAt).toBeLessThan(LIVE_INTERVAL_MS);
    const updates = callsIn(channel, "chat.update");
    expect(updates.length).toBeGreaterThanOrEqual(3);
    // The first update follows the post as soon as it ended; from it on, one a second.
    expectSpaced(liveCalls(updates));
    const [msg] = slack.ws.thread(channel, parent);
    expect([msg.text, msg.blocks]).toEqual([rendered.text, rendered.blocks]);
    // While it grew, the message showed the command and the Stop button.
    const middle = updates.find((u) => String(u.args.blocks).includes("$ ls"));
    expect(String(middle?.args.blocks)).toContain(STOP_ACTION_ID);
  });

  it("loses nothing to a 429 while updating", async () => {
    slack.streams.refused = "feature_not_enabled";
    const channel = newChannel();
    const parent = userMessage(slack, channel, "build it");
    slack.rateLimit("chat.update", 2, 1);
    const live = new SlackLiveMessage(client, out, logger, place(channel, parent), { streaming: true });
    const { answer } = await slowAnswer(live, 100);
    const rendered = renderAnswer(finalOf(answer));
    expect(await live.finish(rendered)).not.toBeNull();
    const updates = callsIn(channel, "chat.update");
    expect(updates.filter((u) => u.status === 429)).toHaveLength(2);
    // Retry-After (1 s) was waited out before the next call.
    const limited = updates.findIndex((u) => u.status === 429);
    expect(updates[limited + 1].at - updates[limited].at).toBeGreaterThanOrEqual(1000);
    const [msg] = slack.ws.thread(channel, parent);
    expect([msg.text, msg.blocks]).toEqual([rendered.text, rendered.blocks]);
  });

  it("ends an answer that outlives Slack's stream lifetime complete, through chat.update", async () => {
    slack.streams.lifetimeMs = 1_500;
    const channel = newChannel();
    const parent = userMessage(slack, channel, "build it");
    const live = new SlackLiveMessage(client, out, logger, place(channel, parent), { streaming: true });
    const { answer } = await slowAnswer(live, 200);
    const rendered = renderAnswer(finalOf(answer));
    await live.finish(rendered);
    expect(callsIn(channel, "chat.appendStream").some((c) => c.error === "message_not_in_streaming_state")).toBe(true);
    const [msg] = slack.ws.thread(channel, parent);
    expect(slack.ws.thread(channel, parent)).toHaveLength(1);
    expect([msg.text, msg.blocks]).toEqual([rendered.text, rendered.blocks]);
    expectSpaced(liveCalls(callsIn(channel, "chat.update")));
  });

  it("ends its own stream before Slack's lifetime and goes on with chat.update", async () => {
    const channel = newChannel();
    const parent = userMessage(slack, channel, "build it");
    const live = new SlackLiveMessage(client, out, logger, place(channel, parent), { streaming: true, streamLifetimeMs: 1_200 });
    const { answer } = await slowAnswer(live, 200);
    const rendered = renderAnswer(finalOf(answer));
    await live.finish(rendered);
    expect(callsIn(channel, "chat.stopStream")).toHaveLength(1);
    expect(callsIn(channel, "chat.appendStream").every((c) => c.ok)).toBe(true);
    expect(callsIn(channel, "chat.update").length).toBeGreaterThanOrEqual(2);
    const [msg] = slack.ws.thread(channel, parent);
    expect([msg.text, msg.blocks]).toEqual([rendered.text, rendered.blocks]);
  });
});
