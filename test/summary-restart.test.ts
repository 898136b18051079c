import { describe, expect, it } from "vitest";
import { isSummaryCall } from "./fakes/model.ts";
import { startedForTests } from "./helpers/lifecycle.ts";
import { releaseHeld } from "./helpers/model-control.ts";
import { startStack, type Stack } from "./helpers/stack.ts";

/**
 * The Worker restarts (a redeploy, a crash) while the room's model is writing
 * its rolling summary: the real Worker in workerd on the same storage, the
 * fake model holding the summary call. The room answers across the restart,
 * no summary is kept from the call that was cut off, and the summary is made
 * later, whole, by a call after the restart.
 */

let stack: Stack;
// A summary is due as soon as one turn has left the model's window of five.
startedForTests(() => startStack({ vars: { DUET_SUMMARY_TOKENS: "1" } }), (s) => (stack = s));

const summaryCalls = (tag: string) => stack.model.calls.filter((c) => isSummaryCall(c) && c.messages.some((m) => m.content.includes(tag)));

async function say(room: string, text: string): Promise<string> {
  const res = await stack.client.message(room, { text: `SAY: ${text}`, userId: "U-ada", userName: "Ada" });
  return res.reply;
}

describe("a Worker restart while the room's summary is written", () => {
  it("the room still answers, nothing of the cut-off summary is kept, and the summary is written whole after the restart", async () => {
    const room = `restart-summary-${Date.now()}`;
    const tag = `walrus${Date.now()}`;
    // The first turn, summarised first, holds every summary call until released.
    expect(await say(room, `noted: the ${tag} job runs at noon SUMHOLD:${tag}`)).toContain(tag);
    for (let i = 1; i < 6; i++) expect(await say(room, `filler ${i}`)).toContain(`filler ${i}`);
    await expect.poll(() => summaryCalls(tag).length, { timeout: 30_000, interval: 50 }).toBe(1);

    await stack.restartWorker();

    // The room answers at once, with no summary kept from the call the restart cut off.
    expect(await say(room, "after the restart")).toContain("after the restart");
    expect((await stack.client.memory(room)).summary).toBeUndefined();
    // That answered turn asked for the summary again: the restarted room's own call.
    await expect.poll(() => summaryCalls(tag).length, { timeout: 30_000, interval: 50 }).toBe(2);
    expect((await stack.client.memory(room)).summary).toBeUndefined();

    await releaseHeld(stack.model, tag);
    await expect.poll(async () => (await stack.client.memory(room)).summary, { timeout: 30_000, interval: 100 }).toBe(true);
    // The next prompt holds the summary whole: the planted fact, under the summary's label.
    const marker = `check-${tag}`;
    expect(await say(room, marker)).toContain(marker);
    const prompt = stack.model.calls.findLast((c) => c.messages.at(-1)?.content.includes(marker))!;
    expect(prompt.messages.find((m) => m.content.includes("SUMMARY of"))?.content).toContain(`noted: the ${tag} job runs at noon`);
  });
});
