import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { mentionEvent, postEvent, startFakeSlack, type FakeSlack } from "../fakes/slack/index.ts";
import type { Stack } from "../helpers/stack.ts";
import type { WorkerTap } from "../helpers/worker-tap.ts";
import { answerTo, botReplies, readable } from "../slack/harness.ts";
import { type Built, portFrom, runBuilt } from "./harness.ts";
import { confirms, type OutboxRig, startOutboxRig } from "./outbox-rig.ts";
import { slackBotEnv, slackHttp } from "../helpers/bot-env.ts";

/**
 * The outbox with the built Slack bot: a bot killed (SIGKILL) while the model
 * is still answering, or after posting the answer but before the room heard of
 * it, leaves the answer in the room; the bot started again on the same
 * settings shows it once, in the message already posted for it, with the
 * command's output. The bot reaches the Worker through a tap that records (and
 * can hold) what it asks.
 */

const SECRET = "outbox-signing-secret";

let rig: OutboxRig;
let built: Built;
let stack: Stack;
let slack: FakeSlack;
let tap: WorkerTap;

beforeAll(async () => {
  ({ built, stack, tap } = rig = await startOutboxRig());
  slack = await startFakeSlack();
});
afterEach(() => tap.hold(() => false));
afterAll(async () => {
  await slack?.close();
  await rig?.close();
});

function startBot() {
  return runBuilt(built, "slack", slackBotEnv(slack, tap.url, stack.token, slackHttp(SECRET)));
}


describe("the outbox with the built Slack bot", () => {
  it("edits the live answer of a bot SIGKILLed mid-answer into the whole answer after the restart; the model asked and the command run once", async () => {
    const first = startBot();
    const port = await portFrom(first, "listens for Slack on port");
    const hold = `outbox-slack-${Date.now()}`;
    const marker = `kept-${Date.now()}`;
    const payload = mentionEvent(slack, { channel: "COUTBOX", text: `HOLD:${hold} CHUNK:10 SAY: Checking it now for you <run>echo ${marker}-output</run>` });
    const ts = String(payload.event.ts);
    expect((await postEvent(`http://127.0.0.1:${port}/slack/events`, payload, { secret: SECRET })).status).toBe(200);
    // The live answer is posted and the room has its ts; the model holds the rest: the bot dies now.
    await expect.poll(() => tap.calls.filter((c) => confirms(false, "COUTBOX")(c) && c.status === 200).length, { timeout: 20_000 }).toBe(1);
    const live = botReplies(slack, "COUTBOX", ts);
    expect(live).toHaveLength(1);
    first.child.kill("SIGKILL");
    await first.exited;
    await fetch(`${stack.model.url}/_release/${hold}`, { method: "POST" });

    await expect.poll(() => stack.executor!.calls.filter((c) => c.command === `echo ${marker}-output`).length, { timeout: 20_000 }).toBe(1);
    const second = startBot();
    try {
      const replies = await answerTo(slack, { channel: "COUTBOX", ts, threadTs: ts });
      // One message: the live one, its stream ended and edited into the answer, not a second reply.
      expect(replies.map((m) => m.ts)).toEqual([live[0].ts]);
      expect(readable(replies[0])).toContain(`${marker}-output`);
      expect(readable(replies[0])).toContain("Checking it now");
      expect(stack.model.calls.filter((c) => JSON.stringify(c).includes(marker))).toHaveLength(1);
      expect(stack.executor!.calls.filter((c) => c.command === `echo ${marker}-output`)).toHaveLength(1);
      // Its /metrics counts the delivery, and its lag from the answer (made while no bot ran) to now.
      const metricsPort = await portFrom(second, "listens for Slack on port");
      const metric = async (series: string) => {
        const line = (await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()).split("\n").find((l) => l.startsWith(`${series} `));
        return line ? Number(line.slice(series.length + 1)) : 0;
      };
      await expect.poll(() => metric('duet_outbox_delivered_total{platform="slack"}'), { timeout: 10_000 }).toBe(1);
      expect(await metric('duet_outbox_lag_seconds_count{platform="slack"}')).toBe(1);
      expect(await metric('duet_outbox_lag_seconds_sum{platform="slack"}')).toBeGreaterThan(0);
    } catch (err) {
      console.log("BOT1", first.output(), "BOT2", second.output());
      throw err;
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });

  it("a bot killed after posting its answer and before confirming it: the restarted bot edits that message, no second copy", async () => {
    const first = startBot();
    const port = await portFrom(first, "listens for Slack on port");
    const marker = `unconfirmed-${Date.now()}`;
    // The confirm never reaches the Worker: the answer is in the thread, and the bot dies waiting.
    tap.hold(confirms(true, "CUNCONFIRMED"));
    const payload = mentionEvent(slack, { channel: "CUNCONFIRMED", text: `SAY: Here it is <run>echo ${marker}-output</run>` });
    const ts = String(payload.event.ts);
    expect((await postEvent(`http://127.0.0.1:${port}/slack/events`, payload, { secret: SECRET })).status).toBe(200);
    // Its own delivery loop may also have claimed the unconfirmed answer by now and sent a second (held) confirm of the same message.
    await expect.poll(() => tap.calls.filter(confirms(true, "CUNCONFIRMED")).length, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
    const posted = botReplies(slack, "CUNCONFIRMED", ts);
    expect(posted).toHaveLength(1);
    expect(readable(posted[0])).toContain(`${marker}-output`);
    first.child.kill("SIGKILL");
    await first.exited;
    tap.hold(() => false);

    const second = startBot();
    try {
      // The dying bot's own feed read may have claimed the answer (its confirm held too): the restarted bot waits out that lease.
      await expect.poll(() => tap.calls.filter((c) => confirms(true, "CUNCONFIRMED")(c) && c.status === 200).length, { timeout: 60_000 }).toBe(1);
      const replies = botReplies(slack, "CUNCONFIRMED", ts);
      expect(replies.map((m) => m.ts)).toEqual([posted[0].ts]);
      expect(readable(replies[0])).toContain(`${marker}-output`);
      expect(stack.executor!.calls.filter((c) => c.command === `echo ${marker}-output`)).toHaveLength(1);
    } catch (err) {
      console.log("BOT1", first.output(), "BOT2", second.output());
      throw err;
    } finally {
      expect(await second.stop()).toBe(0);
    }
  }, 120_000);
});
