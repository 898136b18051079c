import { LIVE_INTERVAL_MS, STOP_ACTION_ID } from "@duet/slack";
import { describe, expect, it } from "vitest";
import type { SlackMessage } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { releaseHeld, wasAborted } from "../helpers/model-control.ts";
import { type BotHandle, callsIn, click, endState, gaps, liveCalls, newChannel, readable, slash, slashAnswerIn, type SlackSetup, startLiveAndWhole } from "./harness.ts";

/**
 * `/duet ask` answered live, end to end: the real bolt app posts the answer in
 * the channel as the bot and updates it while the real Worker streams it from
 * the fake model; the response_url, which takes 5 posts in 30 minutes, is left
 * for the whole answer where the bot cannot post. "Before the model finished"
 * is proven by holding the model; a bot with DUET_STREAMING=off gives the
 * whole answer each live one must end as.
 */

let setup: SlackSetup;
startedForTests(startLiveAndWhole, (s) => (setup = s));
/** Answers live (the default), and whole (DUET_STREAMING=off). */
const live = (): BotHandle => setup.bots[0];
const whole = (): BotHandle => setup.bots[1];

const slack = () => setup.slack;
const model = () => setup.stack.model;
const release = (name: string) => releaseHeld(model(), name);
const aborted = (name: string, waitMs?: number) => wasAborted(model(), name, waitMs);

/** Written in pieces over about 3 s, then three commands (the Worker runs them after the text), one with output long enough for a file. */
const LONG = "CHUNK:8 DRIP:150 SAY: Let me check the build, then the tests, then the logs, one at a time.\n<run>sleep 2 && echo built-ok</run>\n<run>sleep 2 && echo tests-ok</run>\n<run>seq 1 5000</run>\nAll three are fine, so the change is ready.";

const botPosts = (channel: string) => slack().ws.channel(channel).filter((m) => m.bot_id === slack().id.botId && m.via === "chat.postMessage");
const hasStop = (m: SlackMessage) => JSON.stringify(m.blocks ?? []).includes(STOP_ACTION_ID);
const responseUrlPosts = (fields: Record<string, string>) => slack().responses.filter((r) => r.id === fields.response_url.split("/").pop());
const filesIn = (channel: string) => slack().ws.everything(channel).flatMap((m) => m.files ?? []).map((f) => ({ filename: f.filename, content: f.content?.toString("utf8") }));

const finalIn = (channel: string) => slashAnswerIn(slack(), channel);

/** The non-streamed bot's answer to `/duet <text>` (through its response_url) and the files it shared. */
async function wholeAnswer(text: string, files = 0): Promise<{ message: SlackMessage; files: ReturnType<typeof filesIn> }> {
  const channel = newChannel();
  await slash(slack(), whole(), channel, text);
  const message = await slack().waitFor(() => slack().ws.channel(channel).find((m) => m.via === "response_url"), "the whole answer");
  await slack().waitFor(() => filesIn(channel).length >= files, "the whole answer's files");
  expect(callsIn(slack(), "chat.postMessage", channel)).toEqual([]);
  return { message, files: filesIn(channel) };
}

describe("/duet ask, live", () => {
  it("shows the first words in the channel while the model is still writing, and ends as the whole answer", async () => {
    const channel = newChannel();
    const { fields } = await slash(slack(), live(), channel, "ask HOLD:slash-first CHUNK:8 SAY: Let me look at that for you, one step at a time.");
    // The model is held after its first piece: whatever shows now came before it finished.
    const shown = await slack().waitFor(() => botPosts(channel).find((m) => readable(m).includes("Let me")), "the first words in the channel");
    expect(hasStop(shown)).toBe(true);
    expect(readable(shown)).toContain("<@U0ALICE> asked: HOLD:slash-first");
    expect(responseUrlPosts(fields)).toEqual([]);
    await release("slash-first");

    const answer = await finalIn(channel);
    const reference = await wholeAnswer("ask CHUNK:8 SAY: Let me look at that for you, one step at a time.");
    // The "asked:" line repeats the question, which held the model; the rest must be the whole answer's.
    expect(endState(answer).blocks.slice(1)).toEqual(endState(reference.message).blocks.slice(1));
    expect(answer.text).toBe(reference.message.text);
    expect(botPosts(channel)).toHaveLength(1);
    expect(responseUrlPosts(fields)).toEqual([]);
  });

  it("shows each command while it runs, at most one update a second, never using the response_url, and ends with the whole answer's blocks and files", async () => {
    const channel = newChannel();
    const { fields } = await slash(slack(), live(), channel, `ask ${LONG}`);
    const answer = await finalIn(channel);
    const reference = await wholeAnswer(`ask ${LONG}`, 1);
    await slack().waitFor(() => filesIn(channel).length >= 1, "the live answer's file");

    const updates = callsIn(slack(), "chat.update", channel);
    // Each command's line said "running…" in some update while it ran.
    const lines = updates.flatMap((u) => readable({ text: "", blocks: typeof u.args.blocks === "string" ? JSON.parse(u.args.blocks) : u.args.blocks }).split("\n"));
    expect(lines).toContain(":hourglass_flowing_sand: `$ sleep 2 &amp;&amp; echo built-ok`  ·  running…");
    expect(lines).toContain(":hourglass_flowing_sand: `$ sleep 2 &amp;&amp; echo tests-ok`  ·  running…");
    // The first update follows the post at once; from it on, one a second.
    expect(Math.min(...gaps(liveCalls(updates)))).toBeGreaterThanOrEqual(LIVE_INTERVAL_MS);
    expect(responseUrlPosts(fields)).toEqual([]);
    expect(endState(answer)).toEqual(endState(reference.message));
    expect(JSON.stringify(endState(answer))).toContain("(cut, whole in duet-output-3.txt)");
    expect(filesIn(channel)).toEqual(reference.files);
    expect(botPosts(channel)).toHaveLength(1);
  });

  it("ends a quick answer as the whole answer too", async () => {
    const channel = newChannel();
    const { fields } = await slash(slack(), live(), channel, "ask SAY: Quick one. <run>echo quick-ok</run>");
    const answer = await finalIn(channel);
    expect(endState(answer)).toEqual(endState((await wholeAnswer("ask SAY: Quick one. <run>echo quick-ok</run>")).message));
    expect(botPosts(channel)).toHaveLength(1);
    expect(responseUrlPosts(fields)).toEqual([]);
  });

  it("stops the turn from the Stop button on the slash answer", async () => {
    const channel = newChannel();
    await slash(slack(), live(), channel, "ask HANG:slash-stop CHUNK:10 SAY: Working on the slash question, still working");
    const shown = await slack().waitFor(() => botPosts(channel).find(hasStop), "the live slash answer");
    const room = `slack-${slack().id.teamId}-${channel}`;
    await click(slack(), live(), { channel, messageTs: shown.ts, actionId: STOP_ACTION_ID, value: room, user: "U0BOB" });
    expect(await aborted("slash-stop")).toBe(true);
    const answer = await finalIn(channel);
    expect(JSON.stringify(answer.blocks)).toContain("Stopped before it finished");
    expect(readable(answer)).toContain("<@U0ALICE> asked:");
    // The click's own note may come after the stopped answer, which no longer waits out the live interval.
    const note = await slack().waitFor(() => slack().ws.ephemeral.find((e) => e.channel === channel && e.user === "U0BOB"), "the note to the person who clicked Stop");
    expect(note.text).toMatch(/Stopping/);
  });

  it("answers whole through the response_url where Slack refuses the bot's post, trying the post only once", async () => {
    slack().refuse("chat.postMessage", "not_in_channel");
    try {
      const channel = newChannel();
      const script = "ask CHUNK:8 DRIP:150 SAY: An answer for a channel Duet has not joined, written slowly.";
      const { fields } = await slash(slack(), live(), channel, script);
      const answer = await slack().waitFor(() => slack().ws.channel(channel).find((m) => m.via === "response_url"), "the answer through the response_url");
      expect(responseUrlPosts(fields)).toHaveLength(1);
      expect(responseUrlPosts(fields)[0].body.response_type).toBe("in_channel");
      expect(callsIn(slack(), "chat.postMessage", channel)).toHaveLength(1);
      slack().refuse("chat.postMessage", null);
      expect(endState(answer)).toEqual(endState((await wholeAnswer(script)).message));
    } finally {
      slack().refuse("chat.postMessage", null);
    }
  });
});
