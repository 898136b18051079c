import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { releaseHeld } from "../helpers/model-control.ts";
import { answerTo, type BotHandle, callsIn, mention, newChannel, readable, startBot, startSlackSetup, type SlackSetup } from "./harness.ts";

/**
 * A short answer grows as it is written: the words after the first reach the
 * thread as soon as the stream has started, not a whole interval later. The
 * fake model writes one piece at a time, each let go by the test; the bot's
 * live interval is set far longer than the test, so only the call right after
 * the stream's start can carry the second piece while the model still writes.
 * A piece that ends in a blank shows its last word at once: the blank says the
 * word is whole, so it need not wait for the model's next piece.
 */

let setup: SlackSetup;
startedForTests(() => startSlackSetup([]), (s) => (setup = s));

/** Asks for `answer` in pieces of `chunk`, the model holding before each after the first; `rest(from)` lets pieces from `from` on go and waits for the reply. */
async function stepped(bot: BotHandle, name: string, chunk: number, answer: string) {
  const channel = newChannel();
  const step = `${name}-${Date.now()}`;
  const m = await mention(setup.slack, bot, { channel, text: `STEP:${step} CHUNK:${chunk} SAY: ${answer}` });
  const started = await setup.slack.waitFor(() => callsIn(setup.slack, "chat.startStream", channel)[0], "the stream's start", 20_000);
  const rest = async (from: number) => {
    for (let i = from; i <= Math.ceil(answer.length / chunk); i++) await releaseHeld(setup.stack.model, `${step}.${i}`);
    const [reply] = await answerTo(setup.slack, m);
    expect(readable(reply)).toContain(answer);
  };
  return { channel, step, started: JSON.stringify(started.args.chunks), rest };
}

describe("a short live answer in Slack", () => {
  let bot: BotHandle;
  beforeAll(async () => {
    bot = await startBot(setup.slack, setup.stack, {}, { live: { intervalMs: 10 * 60_000 } });
  });
  afterAll(() => bot?.stop());

  it("appends the model's second piece to the stream while the model is still writing", async () => {
    // Pieces of 8: "Let me l", "ook at t", "he build", … The model holds before each piece after the first.
    const { channel, step, started, rest } = await stepped(bot, "grow", 8, "Let me look at the build and then the tests, one by one.");
    expect(started).toContain("Let me");
    expect(started).not.toContain("look");

    await releaseHeld(setup.stack.model, `${step}.1`);
    // The model now holds before its third piece: this append came while it was still writing.
    const grown = await setup.slack.waitFor(() => callsIn(setup.slack, "chat.appendStream", channel).find((c) => JSON.stringify(c.args.chunks).includes("look")), "an append with the second piece", 20_000);
    expect(JSON.stringify(grown.args.chunks)).not.toContain("build");
    expect(callsIn(setup.slack, "chat.stopStream", channel)).toEqual([]);
    await rest(2);
  }, 60_000);

  it("starts the stream with a first piece that ends in a blank while the model holds: its last word is whole", async () => {
    // Pieces of 9: "Checking ", "the build", " and then", … The model holds before each piece after the first.
    const { started, rest } = await stepped(bot, "whole", 9, "Checking the build and then the tests pass.");
    expect(started).toContain("Checking");
    expect(started).not.toContain("the");
    await rest(1);
  }, 60_000);
});
