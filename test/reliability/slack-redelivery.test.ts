import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeSlack, mentionEvent, postEvent, startFakeSlack } from "../fakes/slack/index.ts";
import { answerTo, type BotHandle, botReplies, mention, modelCallsFor, newChannel, readable, repeatWatcher, SIGNING_SECRET, startBot } from "../slack/harness.ts";
import { type Rig, slackRoom, startRig } from "./rig.ts";
import { turn } from "./tally.ts";

/**
 * Slack delivers an event again whenever it doubts the ack: at once, after a
 * minute, after five, to whichever bot process is up then. Whatever arrives
 * how often, people see one answer, the model runs once and so does the
 * command (it appends a line to a file in the room's real sandbox, so a second
 * run would leave a second line).
 */

let rig: Rig;
let slack: FakeSlack;
/** The bots log each delivery they skip as a repeat; the test waits for those lines. */
const watch = repeatWatcher();

beforeAll(async () => {
  rig = await startRig();
  slack = await startFakeSlack();
});

afterAll(async () => {
  await slack?.close();
  await rig?.stop();
});

describe("one Slack event, delivered four times", () => {
  it("three at once, then once more to a restarted bot: one model call, one command run, one reply", async () => {
    const channel = newChannel();
    const room = slackRoom(slack.id.teamId, channel);
    const marker = `four-deliveries-${channel}`;
    const payload = mentionEvent(slack, { channel, text: `SAY: ${marker} <run>echo ${marker} >> runs.txt</run>` });
    const ts = String(payload.event.ts);
    const t = turn("Slack event delivered four times");
    let bot: BotHandle = await startBot(slack, rig.stack, {}, { logger: watch.logger });
    try {
      const first = await Promise.all(
        [0, 1, 2].map((retryNum) =>
          postEvent(bot.url, payload, { secret: SIGNING_SECRET, ...(retryNum ? { retryNum, retryReason: "http_timeout" } : {}) }),
        ),
      );
      expect(first.map((d) => d.status)).toEqual([200, 200, 200]);
      await answerTo(slack, { channel, ts, threadTs: ts });

      // A restarted process remembers nothing; only what Slack and the Worker hold can stop a second answer.
      await bot.stop();
      bot = await startBot(slack, rig.stack, {}, { logger: watch.logger });
      const fourth = await postEvent(bot.url, payload, { secret: SIGNING_SECRET, retryNum: 3, retryReason: "http_timeout" });
      expect(fourth.status).toBe(200);
      // Skipped: two of the first three by the first process, the fourth by the restarted one, through the Worker's claim.
      await expect.poll(() => watch.skipped.filter((id) => id === payload.event_id).length, { timeout: 20_000, interval: 20 }).toBe(3);

      // A later mention in the same room is answered after the repeats had every chance to run.
      const laterTurn = turn("Slack mention after the repeats");
      const later = await mention(slack, bot, { channel, text: `SAY: later-${channel}` });
      laterTurn.answered(await answerTo(slack, later));

      const replies = botReplies(slack, channel, ts);
      t.answered(replies);
      expect(readable(replies[0])).toContain(marker);
      expect(modelCallsFor(rig.stack, marker)).toBe(1);
      const cat = await rig.stack.client.exec(room, { cmd: "cat runs.txt" });
      expect(cat.result.stdout).toBe(`${marker}\n`);
      const { messages } = await rig.stack.client.history(room);
      expect(messages.map((m) => `${m.role}:${m.text.split("\n")[0]}`)).toEqual([
        `user:SAY: ${marker} <run>echo ${marker} >> runs.txt</run>`,
        `agent:${marker}`,
        `user:SAY: later-${channel}`,
        `agent:later-${channel}`,
        // The direct run above joins the history as people see it.
        "user:Run: cat runs.txt",
        "agent:Output (cat runs.txt):",
      ]);
    } finally {
      await bot.stop();
    }
  });
});
