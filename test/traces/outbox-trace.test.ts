import type { SpanData } from "@duet/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeCollector, type FakeCollector } from "../fakes/otlp.ts";
import { mentionEvent, postEvent, startFakeSlack, type FakeSlack } from "../fakes/slack/index.ts";
import { QUICK_DELIVERY } from "../helpers/quick-delivery.ts";
import { startStack, type Stack } from "../helpers/stack.ts";
import { answerTo, readable } from "../slack/harness.ts";
import { buildBots, type Built, portFrom, runBuilt } from "../built/harness.ts";
import { chatTokens, usageTokens } from "./token-sums.ts";

/**
 * An answer delivered through the outbox joins its turn's trace: the built
 * Slack bot is SIGKILLed while the model is still answering, a second bot
 * delivers the answer the room kept, and its `outbox.deliver` span sits under
 * the Worker's `invoke_agent` of that turn, read back from a fake OTLP collector.
 */

const SECRET = "outbox-trace-signing-secret";

let built: Built;
let stack: Stack;
let slack: FakeSlack;
let collector: FakeCollector;
let otlp: Record<string, string>;

beforeAll(async () => {
  built = await buildBots();
  collector = await startFakeCollector();
  otlp = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url };
  // Answers unconfirmed for half a second are offered in the feed, leased 3 s to the bot that takes one (15 s each in production).
  stack = await startStack({ vars: { ...QUICK_DELIVERY, ...otlp } });
  slack = await startFakeSlack();
});
afterAll(async () => {
  await slack?.close();
  await stack?.stop();
  await collector?.close();
  built?.remove();
});

function startBot() {
  return runBuilt(built, "slack", {
    SLACK_BOT_TOKEN: slack.id.botToken,
    SLACK_API_URL: slack.apiUrl,
    DUET_WORKER_URL: stack.workerUrl,
    DUET_API_TOKEN: stack.token,
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_PORT: "0",
    ...otlp,
  });
}

const inRoom = (room: string, prefix: string) => (s: SpanData) => s.name.startsWith(prefix) && s.attributes["gen_ai.conversation.id"] === room;

describe("an outbox delivery's trace", () => {
  it("a bot killed mid-turn: the second bot's delivery is a span in the turn's trace, under its invoke_agent", async () => {
    const channel = "COUTBOXTRACE";
    const room = `slack-${slack.id.teamId}-${channel}`;
    const first = startBot();
    const port = await portFrom(first, "listens for Slack on port");
    const hold = `outbox-trace-${Date.now()}`;
    const marker = `traced-${Date.now()}`;
    const payload = mentionEvent(slack, { channel, text: `HOLD:${hold} SAY: Looking into it <run>echo ${marker}-output</run>` });
    const ts = String(payload.event.ts);
    expect((await postEvent(`http://127.0.0.1:${port}/slack/events`, payload, { secret: SECRET })).status).toBe(200);
    // The model is answering (held after its first piece): the bot dies now, and the model finishes.
    await expect.poll(() => stack.model.calls.filter((c) => JSON.stringify(c).includes(hold)).length, { timeout: 20_000 }).toBe(1);
    first.child.kill("SIGKILL");
    await first.exited;
    await fetch(`${stack.model.url}/_release/${hold}`, { method: "POST" });

    const second = startBot();
    try {
      const replies = await answerTo(slack, { channel, ts, threadTs: ts });
      expect(readable(replies.at(-1)!)).toContain(`${marker}-output`);

      await collector.waitFor((spans) => spans.some(inRoom(room, "outbox.deliver")) && spans.some(inRoom(room, "invoke_agent")), "the delivery's and the turn's spans");
      const agent = collector.spans.find(inRoom(room, "invoke_agent"))!;
      const delivered = collector.spans.filter(inRoom(room, "outbox.deliver"));
      expect(delivered).toHaveLength(1);
      const [deliver] = delivered;
      // The turn joined the dead bot's trace (its caller's span), and the delivery joined the turn's.
      expect(agent.parentSpanId).toEqual(expect.any(String));
      expect(deliver.traceId).toBe(agent.traceId);
      expect(deliver.parentSpanId).toBe(agent.spanId);
      expect(deliver.service).toBe("duet-slack");
      expect(deliver.error).toBeUndefined();
      expect(deliver.attributes).toMatchObject({ "duet.delivery.platform": "slack", "duet.delivery.posted": true });
      // Its post and its confirm to the room are its children.
      const children = collector.trace(agent.traceId).filter((s) => s.parentSpanId === deliver.spanId);
      expect(children.map((s) => s.name).sort()).toEqual(["chat.deliver", "duet.confirm"]);
      // The turn's model call and command are in the same trace, and its tokens are the room's usage rows, exactly.
      const spans = collector.trace(agent.traceId);
      expect(spans.filter((s) => s.name.startsWith("chat ")).map((s) => s.parentSpanId)).toEqual([agent.spanId]);
      expect(spans.filter((s) => s.name.startsWith("execute_tool")).map((s) => [s.attributes["duet.command"], s.parentSpanId])).toEqual([[`echo ${marker}-output`, agent.spanId]]);
      const usage = await usageTokens(stack.client, room);
      expect(usage.turns).toBe(1);
      expect(chatTokens(spans)).toEqual({ input: usage.input, output: usage.output });
      expect(usage.input).toBeGreaterThan(0);
    } catch (err) {
      console.log("BOT1", first.output(), "BOT2", second.output());
      throw err;
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });
});
