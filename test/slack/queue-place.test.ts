import { queuedNote } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { type FakeSlack, mentionEvent, postEvent } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { releaseHeld } from "../helpers/model-control.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, callsIn, mention, newChannel, readable, repeatWatcher, SIGNING_SECRET, slash, slashAnswerIn, startBot, startSlackSetup } from "./harness.ts";

/**
 * A room answers one question at a time. Whoever asks while others wait is
 * told their place at once, privately in their thread (an ephemeral adds no
 * message to a busy channel), and is told once, whatever Slack delivers again.
 */

let stack: Stack;
let slack: FakeSlack;

// The first turn is held while the others queue: the model may take a minute.
startedForTests(() => startSlackSetup([], { vars: { MODEL_TIMEOUT_MS: "60000" } }), (s) => ({ stack, slack } = s));

const watch = repeatWatcher();
const QUEUE_NOTE = /questions? (is|are) ahead of yours/;

describe("a question asked while others wait in the channel", () => {
  it("tells the 2nd and 3rd askers their place privately in their threads, once each, and answers all three", async () => {
    const bot: BotHandle = await startBot(slack, stack, {}, { logger: watch.logger });
    try {
      const channel = newChannel();
      const hold = `place-${Date.now()}`;
      const first = await mention(slack, bot, { channel, text: `HOLD:${hold} CHUNK:6 SAY: first-in-line answer`, user: "U0FIRST" });
      await expect.poll(() => stack.model.calls.filter((c) => JSON.stringify(c).includes(hold)).length, { timeout: 20_000 }).toBe(1);
      const notesTo = (user: string) => slack.ws.ephemeral.filter((e) => e.channel === channel && e.user === user && QUEUE_NOTE.test(e.text));

      const second = await mention(slack, bot, { channel, text: "SAY: second-in-line answer", user: "U0SECOND" });
      // Each waits for the one before it to be told: the room counts them in the order they reached it.
      await slack.waitFor(() => notesTo("U0SECOND").length > 0 || null, "the second asker's note");
      const payload = mentionEvent(slack, { channel, text: "SAY: third-in-line answer", user: "U0THIRD" });
      await postEvent(bot.url, payload, { secret: SIGNING_SECRET });
      const third = { channel, ts: String(payload.event.ts), threadTs: String(payload.event.ts) };
      await slack.waitFor(() => notesTo("U0THIRD").length > 0 || null, "the third asker's note");
      // Slack delivers the third mention again (its ack seemed lost): no second turn, no second note.
      await postEvent(bot.url, payload, { secret: SIGNING_SECRET, retryNum: 1, retryReason: "http_timeout" });
      await expect.poll(() => watch.skipped.filter((id) => id === String(payload.event_id)).length, { timeout: 20_000, interval: 20 }).toBe(1);

      expect(notesTo("U0SECOND")).toMatchObject([{ channel, thread_ts: second.ts, via: "chat.postEphemeral", text: queuedNote(1) }]);
      expect(notesTo("U0THIRD")).toMatchObject([{ channel, thread_ts: third.ts, via: "chat.postEphemeral", text: queuedNote(2) }]);

      await releaseHeld(stack.model, hold);
      expect(readable((await answerTo(slack, first))[0])).toContain("first-in-line answer");
      expect(readable((await answerTo(slack, second))[0])).toContain("second-in-line answer");
      expect(readable((await answerTo(slack, third))[0])).toContain("third-in-line answer");
      // Told once each, the first asker (who never waited) not at all, and not one public message says it.
      expect(slack.ws.ephemeral.filter((e) => e.channel === channel && QUEUE_NOTE.test(e.text)).map((e) => e.user)).toEqual(["U0SECOND", "U0THIRD"]);
      expect(slack.ws.everything(channel).filter((m) => QUEUE_NOTE.test(readable(m)))).toEqual([]);
      expect(callsIn(slack, "chat.postMessage", channel).filter((c) => QUEUE_NOTE.test(JSON.stringify(c.args)))).toEqual([]);
    } finally {
      await bot.stop();
    }
  }, 120_000);

  it("/duet ask behind a mention tells the asker their place through the command's response_url, only to them", async () => {
    const bot: BotHandle = await startBot(slack, stack);
    try {
      const channel = newChannel();
      const hold = `place-slash-${Date.now()}`;
      const first = await mention(slack, bot, { channel, text: `HOLD:${hold} CHUNK:6 SAY: first-in-line answer`, user: "U0FIRST" });
      await expect.poll(() => stack.model.calls.filter((c) => JSON.stringify(c).includes(hold)).length, { timeout: 20_000 }).toBe(1);
      await slash(slack, bot, channel, "ask SAY: slash-in-line answer", "U0SLASH");
      const note = await slack.waitFor(() => slack.ws.ephemeral.find((e) => e.channel === channel && e.user === "U0SLASH" && QUEUE_NOTE.test(e.text)), "the slash asker's note");
      expect(note).toMatchObject({ via: "response_url", text: queuedNote(1) });
      await releaseHeld(stack.model, hold);
      await answerTo(slack, first);
      expect(readable(await slashAnswerIn(slack, channel))).toContain("slash-in-line answer");
      expect(slack.ws.everything(channel).filter((m) => QUEUE_NOTE.test(readable(m)))).toEqual([]);
    } finally {
      await bot.stop();
    }
  }, 120_000);
});
