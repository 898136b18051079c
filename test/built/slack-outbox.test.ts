import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mentionEvent, postEvent, startFakeSlack, type FakeSlack } from "../fakes/slack/index.ts";
import { startStack, type Stack } from "../helpers/stack.ts";
import { answerTo, readable } from "../slack/harness.ts";
import { buildBots, type Built, portFrom, runBuilt } from "./harness.ts";

/**
 * The outbox with the built Slack bot: a bot killed (SIGKILL) while the model
 * is still answering leaves the answer in the room, and the bot started again
 * on the same settings posts it once, with the command's output.
 */

const SECRET = "outbox-signing-secret";

let built: Built;
let stack: Stack;
let slack: FakeSlack;

beforeAll(async () => {
  built = await buildBots();
  // Answers unconfirmed for half a second are offered in the feed (15 s in production).
  stack = await startStack({ vars: { DUET_DELIVERY_GRACE_MS: "500" } });
  slack = await startFakeSlack();
});
afterAll(async () => {
  await slack?.close();
  await stack?.stop();
  built?.remove();
});

const env = {
  get SLACK_BOT_TOKEN() {
    return slack.id.botToken;
  },
} as const;

function startBot() {
  return runBuilt(built, "slack", {
    SLACK_BOT_TOKEN: env.SLACK_BOT_TOKEN,
    SLACK_API_URL: slack.apiUrl,
    DUET_WORKER_URL: stack.workerUrl,
    DUET_API_TOKEN: stack.token,
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_PORT: "0",
  });
}

describe("the outbox with the built Slack bot", () => {
  it("delivers the answer of a turn whose bot was SIGKILLed mid-answer once, after the restart; the model asked and the command run once", async () => {
    const first = startBot();
    const port = await portFrom(first, "listens for Slack on port");
    const hold = `outbox-slack-${Date.now()}`;
    const marker = `kept-${Date.now()}`;
    const payload = mentionEvent(slack, { channel: "COUTBOX", text: `HOLD:${hold} CHUNK:10 SAY: Checking it now for you <run>echo ${marker}-output</run>` });
    const ts = String(payload.event.ts);
    expect((await postEvent(`http://127.0.0.1:${port}/slack/events`, payload, { secret: SECRET })).status).toBe(200);
    // The model has begun answering and holds the rest: the bot dies now.
    await expect.poll(() => stack.model.calls.filter((c) => JSON.stringify(c).includes(marker)).length, { timeout: 20_000 }).toBe(1);
    first.child.kill("SIGKILL");
    await first.exited;
    await fetch(`${stack.model.url}/_release/${hold}`, { method: "POST" });

    await expect.poll(() => stack.executor!.calls.filter((c) => c.command === `echo ${marker}-output`).length, { timeout: 20_000 }).toBe(1);
    const second = startBot();
    try {
      const replies = await answerTo(slack, { channel: "COUTBOX", ts, threadTs: ts });
      const withOutput = replies.map(readable).filter((t) => t.includes(`${marker}-output`) && t.includes("Checking it now"));
      expect(withOutput).toHaveLength(1);
      expect(stack.model.calls.filter((c) => JSON.stringify(c).includes(marker))).toHaveLength(1);
      expect(stack.executor!.calls.filter((c) => c.command === `echo ${marker}-output`)).toHaveLength(1);
    } catch (err) {
      console.log("BOT1", first.output(), "BOT2", second.output(), "FEED", await (await fetch(`${stack.workerUrl}/api/deliveries/slack`, { headers: { authorization: `Bearer ${stack.token}` } })).text());
      throw err;
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });
});
