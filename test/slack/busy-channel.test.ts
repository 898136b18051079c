import { queuedNote, ROOM_QUEUE_MAX } from "@duet/shared";
import { describe, expect, it } from "vitest";
import type { FakeSlack } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { releaseHeld } from "../helpers/model-control.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, callsIn, mention, type Mentioned, newChannel, readable, startSlackSetup } from "./harness.ts";

/**
 * One busy channel: more questions at once than its room's line holds. The
 * line is filled straight through the Worker's API (those turns post nothing in
 * the channel, so the test need not wait out a hundred answers at the channel's
 * pace); the next mention takes the line's last place and is told so, the ones
 * after it are refused: each refused person hears it on their own (an
 * ephemeral and the ⚠️), and the channel gets no notice per refusal.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;

// The first turn is held while the others are refused: the model may take a minute.
startedForTests(() => startSlackSetup([{}], { vars: { MODEL_TIMEOUT_MS: "60000" } }), (s) => ({ stack, slack, bots: [bot] } = s));

const BUSY = /questions waiting, the most it holds/;
describe("a channel with more questions at once than its room's line holds", () => {
  it("tells the last one in the line its place, each refused person privately, with no notice in the channel, and answers the ones in line", async () => {
    const channel = newChannel();
    const room = `slack-${slack.id.teamId}-${channel}`;
    const hold = `busy-${Date.now()}`;
    const first = await mention(slack, bot, { channel, text: `HOLD:${hold} CHUNK:6 SAY: first-in-line, held`, user: "U0FIRST" });
    // The first turn holds the room: everything after it waits in the line or is refused.
    await expect.poll(() => stack.model.calls.filter((c) => JSON.stringify(c).includes(hold)).length, { timeout: 20_000 }).toBe(1);
    // All but one place of the line, taken by asks straight to the Worker, each once the one before it was admitted.
    const direct: Promise<unknown>[] = [];
    for (let i = 0; i < ROOM_QUEUE_MAX - 1; i++) {
      await new Promise<void>((admitted) => direct.push(stack.client.messageStream(room, { text: `SAY: direct-${i}`, idempotencyKey: `${hold}-direct-${i}` }, () => {}, { onAnswered: () => admitted() })));
    }
    const last = await mention(slack, bot, { channel, text: "SAY: last-in-line", user: "U0LAST" });
    await slack.waitFor(() => slack.ws.ephemeral.find((e) => e.channel === channel && e.user === "U0LAST" && e.text === queuedNote(ROOM_QUEUE_MAX)), "the last place's note");
    const refusedCount = 3;
    const refused: Mentioned[] = [];
    for (let i = 0; i < refusedCount; i++) refused.push(await mention(slack, bot, { channel, text: `SAY: refused-${i}`, user: `U0P${i}` }));
    // Each refused person is told in their own thread, only to them.
    for (const [i, m] of refused.entries()) {
      await slack.waitFor(() => slack.ws.ephemeral.find((e) => e.channel === channel && e.user === `U0P${i}` && e.thread_ts === m.ts && BUSY.test(e.text)), "a refused person's note");
      await slack.waitFor(() => slack.ws.reactionsOn(channel, m.ts).includes("warning"), "the ⚠️ on a refused question");
    }
    expect(slack.ws.ephemeral.filter((e) => e.channel === channel && BUSY.test(e.text))).toHaveLength(refusedCount);

    await releaseHeld(stack.model, hold);
    await answerTo(slack, first);
    await Promise.all(direct);
    expect(readable((await answerTo(slack, last))[0])).toContain("last-in-line");
    // No refusal reached the channel: not one message in it says the room is busy.
    expect(slack.ws.everything(channel).filter((m) => m.bot_id && BUSY.test(readable(m)))).toEqual([]);
    expect(callsIn(slack, "chat.postMessage", channel).filter((c) => BUSY.test(String(c.args.text)))).toEqual([]);
  }, 120_000);
});
