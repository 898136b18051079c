import { LIVE_INTERVAL_MS, STOP_ACTION_ID } from "@duet/slack";
import { afterEach, describe, expect, it } from "vitest";
import { type ApiCall, buttonClick, postInteraction, type SlackMessage } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { releaseHeld, wasAborted } from "../helpers/model-control.ts";
import { answerTo, type BotHandle, botReplies, callsIn, endState, gaps, liveCalls, mention, newChannel, SIGNING_SECRET, slash, type SlackSetup, startLiveAndWhole } from "./harness.ts";

/**
 * Live answers in Slack, end to end: the real Worker streams a slowly written
 * answer from the fake model, the real bolt app shows it in the fake Slack.
 * Spacing is read from the times the fake recorded each call, never from the
 * test's clock; "before the model finished" is proven by holding the model.
 */

let setup: SlackSetup;
/** Streams (the default) and posts whole (DUET_STREAMING=off), for comparing end states. */
let live: BotHandle;
let whole: BotHandle;

startedForTests(startLiveAndWhole, (s) => {
  setup = s;
  [live, whole] = s.bots;
});
afterEach(() => {
  setup.slack.streams.lifetimeMs = 5 * 60_000;
  setup.slack.streams.refused = null;
});

const model = () => setup.stack.model;
const release = (name: string) => releaseHeld(model(), name);
const aborted = (name: string, waitMs?: number) => wasAborted(model(), name, waitMs);

/** About 5 s of writing in pieces of 8 characters, then a command that runs for 2 s (the Worker runs commands after the text). */
const SLOW = "CHUNK:8 DRIP:250 SAY: Let me look at the build first, step by step, so nothing is missed.\n<run>sleep 2 && echo built-ok</run>\nThe build works and the tests pass, so the change is ready for review.";

const callsFor = (method: string, channel: string): ApiCall[] => callsIn(setup.slack, method, channel);

const references = new Map<string, Promise<SlackMessage>>();
/** The non-streamed bot's answer to `script`, asked once per script. */
function reference(script: string): Promise<SlackMessage> {
  if (!references.has(script)) {
    references.set(script, (async () => {
      const channel = newChannel();
      const m = await mention(setup.slack, whole, { channel, text: script });
      return (await answerTo(setup.slack, m))[0];
    })());
  }
  return references.get(script)!;
}

describe("live answers in Slack", () => {
  it("streams the answer into the thread before the model finishes, grows it at least 3 times, and ends as the non-streamed answer", async () => {
    const channel = newChannel();
    const m = await mention(setup.slack, live, { channel, text: `HOLD:slack-first ${SLOW}` });
    // The model is held after its first piece: whatever shows now came before it finished.
    const streamed = await setup.slack.waitFor(() => botReplies(setup.slack, channel, m.threadTs).find((r) => r.stream && r.text.includes("Let me")), "the first words in the thread");
    expect(streamed.stream?.open).toBe(true);
    await release("slack-first");
    const [answer] = await answerTo(setup.slack, m);

    const [start] = callsFor("chat.startStream", channel);
    expect(start.args).toMatchObject({ recipient_user_id: "U0ALICE", recipient_team_id: setup.slack.id.teamId, thread_ts: m.threadTs });
    expect(JSON.stringify(start.args.chunks)).toContain(STOP_ACTION_ID);
    const appends = callsFor("chat.appendStream", channel);
    expect(appends.length).toBeGreaterThanOrEqual(3);
    // The first append follows the start at once (live-growth.test.ts); from it on, one a second.
    expect(Math.min(...gaps(appends))).toBeGreaterThanOrEqual(LIVE_INTERVAL_MS);
    // The command was shown as a running task while it ran; it ends complete with its exit code
    // (the last state may reach Slack with the stream's last append or with its stop).
    expect(answer.stream!.appends.flatMap((a) => a.tasks)[0]).toBe("run-0:in_progress");
    expect(answer.stream!.tasks).toMatchObject([{ title: "$ sleep 2 && echo built-ok", status: "complete", details: expect.stringMatching(/^exit 0 · /) }]);
    expect(botReplies(setup.slack, channel, m.threadTs)).toHaveLength(1);
    const ref = await reference(SLOW);
    expect(endState(answer)).toEqual(endState(ref));
    expect(setup.slack.ws.reactionsOn(channel, m.ts)).toContain("white_check_mark");
  });

  it("where streaming is refused, updates the reply at most once a second, loses nothing to a 429, and ends as the non-streamed answer", async () => {
    setup.slack.streams.refused = "feature_not_enabled";
    const channel = newChannel();
    setup.slack.rateLimit("chat.update", 1, 1);
    const m = await mention(setup.slack, live, { channel, text: SLOW });
    const [answer] = await answerTo(setup.slack, m);

    const updates = callsFor("chat.update", channel);
    expect(updates.filter((u) => u.status === 200).length).toBeGreaterThanOrEqual(3);
    expect(updates.some((u) => u.status === 429)).toBe(true);
    expect(Math.min(...gaps(liveCalls(updates)))).toBeGreaterThanOrEqual(LIVE_INTERVAL_MS);
    expect(endState(answer)).toEqual(endState(await reference(SLOW)));
  });

  it("never shows the bot's own secrets, in the stream or the final answer, even split across the model's pieces", async () => {
    // The Worker knows neither; the signing secret matches no pattern, so only the flow's redaction with the
    // bot's secrets keeps it out. It arrives in pieces of 6 characters, and the command (shown running) prints it.
    const channel = newChannel();
    const said = `The secret is ${SIGNING_SECRET} and the token is ${setup.slack.id.botToken}, said slowly so it streams.`;
    const m = await mention(setup.slack, live, { channel, text: `CHUNK:6 DRIP:120 SAY: ${said}\n<run>echo ${SIGNING_SECRET} && sleep 2</run>\nDone.` });
    const [answer] = await answerTo(setup.slack, m);
    const streamed = answer.stream!.appends.map((a) => a.text).join("");
    expect(streamed).toContain("The secret is [redacted] and the token is xoxb-[redacted]");
    expect(answer.stream!.tasks).toMatchObject([{ title: "$ echo [redacted] && sleep 2" }]);
    expect(JSON.stringify(answer.blocks)).toContain("The secret is [redacted]");
    const everything = JSON.stringify(setup.slack.calls.filter((c) => c.args.channel === channel).map((c) => c.args));
    expect(everything).toContain("[redacted]");
    expect(everything).not.toContain(SIGNING_SECRET);
    expect(everything).not.toContain(setup.slack.id.botToken);
  });

  it("posts the answer anew when its live message can no longer be updated", async () => {
    setup.slack.streams.refused = "feature_not_enabled";
    setup.slack.refuse("chat.update", "message_not_found");
    try {
      const channel = newChannel();
      const m = await mention(setup.slack, live, { channel, text: "CHUNK:8 DRIP:100 SAY: A short answer that still takes a moment to write." });
      const replies = await answerTo(setup.slack, m);
      expect(replies).toHaveLength(2);
      expect(endState(replies[1])).toEqual(endState(await reference("CHUNK:8 DRIP:100 SAY: A short answer that still takes a moment to write.")));
    } finally {
      setup.slack.refuse("chat.update", null);
    }
  });

  it("ends an answer that outlives the stream's lifetime complete", async () => {
    setup.slack.streams.lifetimeMs = 1_500;
    const channel = newChannel();
    const m = await mention(setup.slack, live, { channel, text: SLOW });
    const [answer] = await answerTo(setup.slack, m);
    expect(callsFor("chat.appendStream", channel).some((c) => c.error === "message_not_in_streaming_state")).toBe(true);
    // At least two updates, so the spacing is measured over something (Math.min of nothing is Infinity).
    const spacing = gaps(liveCalls(callsFor("chat.update", channel)));
    expect(spacing.length).toBeGreaterThan(0);
    expect(Math.min(...spacing)).toBeGreaterThanOrEqual(LIVE_INTERVAL_MS);
    expect(botReplies(setup.slack, channel, m.threadTs)).toHaveLength(1);
    expect(endState(answer)).toEqual(endState(await reference(SLOW)));
  });

  it("stops a turn from its Stop button, only in its own room, and from /duet stop", async () => {
    const [a, b] = [newChannel(), newChannel()];
    const ma = await mention(setup.slack, live, { channel: a, text: "HANG:slack-stop-a CHUNK:10 SAY: Working on the first thing, still working" });
    const mb = await mention(setup.slack, live, { channel: b, text: "HANG:slack-stop-b CHUNK:10 SAY: Working on the second thing, still working" });
    const liveA = await setup.slack.waitFor(() => botReplies(setup.slack, a, ma.threadTs).find((r) => r.stream), "the live answer in A");
    const liveB = await setup.slack.waitFor(() => botReplies(setup.slack, b, mb.threadTs).find((r) => r.stream), "the live answer in B");
    const roomA = `slack-${setup.slack.id.teamId}-${a}`;

    // A button in B that names A's room (a forged click) stops nothing.
    const forged = buttonClick(setup.slack, { channel: b, messageTs: liveB.ts, actionId: STOP_ACTION_ID, value: roomA, user: "U0BOB" });
    expect((await postInteraction(live.url, forged, { secret: SIGNING_SECRET })).status).toBe(200);
    await setup.slack.waitFor(() => setup.slack.ws.ephemeral.find((e) => e.channel === b && e.text.includes("another conversation")), "the answer to the forged click");
    expect(await aborted("slack-stop-a", 0)).toBe(false);

    // Bob, in A, clicks A's button: A's model call is aborted and A's answer ends stopped.
    const click = buttonClick(setup.slack, { channel: a, messageTs: liveA.ts, actionId: STOP_ACTION_ID, value: roomA, user: "U0BOB" });
    await postInteraction(live.url, click, { secret: SIGNING_SECRET });
    expect(await aborted("slack-stop-a")).toBe(true);
    const [stoppedA] = await answerTo(setup.slack, ma);
    expect(JSON.stringify(stoppedA.blocks)).toContain("Stopped before it finished");
    expect(JSON.stringify(stoppedA.blocks)).not.toContain(STOP_ACTION_ID);
    expect(await aborted("slack-stop-b", 0)).toBe(false);

    // /duet stop in B stops B.
    await slash(setup.slack, live, b, "stop");
    expect(await aborted("slack-stop-b")).toBe(true);
    const [stoppedB] = await answerTo(setup.slack, mb);
    expect(JSON.stringify(stoppedB.blocks)).toContain("Stopped before it finished");
  });
});
