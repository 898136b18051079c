import { ROOM_QUEUE_MAX } from "@duet/shared";
import { describe, expect, it } from "vitest";
import type { FakeSlack } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { releaseHeld } from "../helpers/model-control.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, callsIn, mention, type Mentioned, newChannel, readable, startSlackSetup } from "./harness.ts";

/**
 * One busy channel: more mentions at once than its room queues. The room
 * refuses the ones past its queue; each refused person hears it on their own
 * (an ephemeral and the ⚠️), and the channel gets no notice per refusal.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;

// The first turn is held while the others are refused: the model may take a minute.
startedForTests(() => startSlackSetup([{}], { vars: { MODEL_TIMEOUT_MS: "60000" } }), (s) => ({ stack, slack, bots: [bot] } = s));

const BUSY = /too many requests waiting/;
describe("a channel with more mentions at once than its room queues", () => {
  it("tells each refused person privately, with no notice in the channel, and answers the ones queued", async () => {
    const channel = newChannel();
    const hold = `busy-${Date.now()}`;
    const first = await mention(slack, bot, { channel, text: `HOLD:${hold} CHUNK:6 SAY: first-in-line, held`, user: "U0FIRST" });
    // The first turn holds the room: everything after it waits in the queue or is refused.
    await expect.poll(() => stack.model.calls.filter((c) => JSON.stringify(c).includes(hold)).length, { timeout: 20_000 }).toBe(1);
    const refusedCount = 3;
    const rest: Mentioned[] = [];
    for (let i = 0; i < ROOM_QUEUE_MAX + refusedCount; i++) rest.push(await mention(slack, bot, { channel, text: `SAY: queued-${i}`, user: `U0P${i}` }));
    // Each refused person is told in their own thread, only to them, after the bot's tries run out.
    const told = await slack.waitFor(() => {
      const notes = slack.ws.ephemeral.filter((e) => e.channel === channel && BUSY.test(e.text));
      return notes.length >= refusedCount ? notes : null;
    }, "the refused people's notes", 60_000);
    expect(told).toHaveLength(refusedCount);
    const refused = rest.filter((m, i) => told.some((e) => e.user === `U0P${i}` && e.thread_ts === m.ts));
    expect(refused).toHaveLength(refusedCount);
    for (const m of refused) await slack.waitFor(() => slack.ws.reactionsOn(channel, m.ts).includes("warning"), "the ⚠️ on a refused question");

    await releaseHeld(stack.model, hold);
    await answerTo(slack, first);
    for (const m of rest.filter((m) => !refused.includes(m))) expect(readable((await answerTo(slack, m))[0])).toMatch(/queued-\d+/);
    // No refusal reached the channel: not one message in it says the room is busy.
    expect(slack.ws.everything(channel).filter((m) => m.bot_id && BUSY.test(readable(m)))).toEqual([]);
    expect(callsIn(slack, "chat.postMessage", channel).filter((c) => BUSY.test(String(c.args.text)))).toEqual([]);
  }, 120_000);
});
