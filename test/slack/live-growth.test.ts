import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { releaseHeld } from "../helpers/model-control.ts";
import { answerTo, type BotHandle, callsIn, mention, newChannel, readable, startBot, startSlackSetup, type SlackSetup } from "./harness.ts";

/**
 * A short answer grows as it is written: the words after the first reach the
 * thread as soon as the stream has started, not a whole interval later. The
 * fake model writes one piece at a time, each let go by the test; the bot's
 * live interval is set far longer than the test, so only the call right after
 * the stream's start can carry the second piece while the model still writes.
 */

let setup: SlackSetup;
startedForTests(() => startSlackSetup([]), (s) => (setup = s));

describe("a short live answer in Slack", () => {
  it("appends the model's second piece to the stream while the model is still writing", async () => {
    const bot: BotHandle = await startBot(setup.slack, setup.stack, {}, { live: { intervalMs: 10 * 60_000 } });
    try {
      const channel = newChannel();
      const step = `grow-${Date.now()}`;
      // Pieces of 8: "Let me l", "ook at t", "he build", … The model holds before each piece after the first.
      const answer = "Let me look at the build and then the tests, one by one.";
      const m = await mention(setup.slack, bot, { channel, text: `STEP:${step} CHUNK:8 SAY: ${answer}` });
      const started = await setup.slack.waitFor(() => callsIn(setup.slack, "chat.startStream", channel)[0], "the stream's start");
      expect(JSON.stringify(started.args.chunks)).toContain("Let me");
      expect(JSON.stringify(started.args.chunks)).not.toContain("look");

      await releaseHeld(setup.stack.model, `${step}.1`);
      // The model now holds before its third piece: this append came while it was still writing.
      const grown = await setup.slack.waitFor(() => callsIn(setup.slack, "chat.appendStream", channel).find((c) => JSON.stringify(c.args.chunks).includes("look")), "an append with the second piece", 20_000);
      expect(JSON.stringify(grown.args.chunks)).not.toContain("build");
      expect(callsIn(setup.slack, "chat.stopStream", channel)).toEqual([]);

      const pieces = Math.ceil(answer.length / 8);
      for (let i = 2; i <= pieces; i++) await releaseHeld(setup.stack.model, `${step}.${i}`);
      const [reply] = await answerTo(setup.slack, m);
      expect(readable(reply)).toContain(answer);
    } finally {
      await bot.stop();
    }
  }, 60_000);
});
