import type { SpanData } from "@duet/shared";
import { describe, expect, it } from "vitest";
import type { FakeCollector } from "../fakes/otlp.ts";
import type { FakeSlack } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, mention, newChannel, readable } from "../slack/harness.ts";
import { chatTokens, usageTokens } from "./token-sums.ts";
import { startTracedSlack } from "./traced-slack.ts";
import { named, slackTurnParts, turnTrace } from "./turn-trace.ts";

/**
 * One trace per turn, from the Slack mention to the sandbox: the real bolt
 * bot and the real Worker (workerd) both export OTLP/HTTP JSON to a fake
 * collector on 127.0.0.1, and the spans are read back as a backend would.
 */

// Assembled from pieces, as the redaction tests do, so scanners do not take them for leaked keys.
const j = (...parts: string[]) => parts.join("");
const GH_TOKEN = j("ghp_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
const OPENAI_KEY = j("sk-proj-", "AbCdEf0123456789_-GhIjKlMnOpQr");
const COLLECTOR_KEY = "collector-key-5f1c0a";

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;
let collector: FakeCollector;

startedForTests(
  () => startTracedSlack({}, `x-api-key=${COLLECTOR_KEY}`),
  (s) => ({ stack, slack, bots: [bot], collector } = s),
);

const roomOf = (channel: string) => `slack-${slack.id.teamId}-${channel}`;

describe("a Slack mention's trace", () => {
  it("is one trace: the bot's ask, the Worker's invoke_agent, its chat and two execute_tool spans and the posts, parents intact", async () => {
    const channel = newChannel();
    const m = await mention(slack, bot, { channel, text: "SAY: Two steps <run>echo one</run> <run>printf two-two</run>" });
    const replies = await answerTo(slack, m);
    expect(readable(replies[0])).toContain("two-two");

    const spans = await turnTrace(collector, roomOf(channel));
    const { byId, ask, call, agent, chats, tools, posts } = slackTurnParts(spans);

    // The Slack event is the root: its reaction and the asker's name look-up, then the ask, under it;
    // the Worker's turn hangs under the bot's call to it.
    const [event] = spans.filter((s) => !s.parentSpanId);
    expect(spans.filter((s) => !s.parentSpanId)).toHaveLength(1);
    expect(event.name).toMatch(/^slack\./);
    expect(event.service).toBe("duet-slack");
    for (const part of ["chat.react", "slack.user_lookup", "duet.ask"]) expect(named(spans, part)[0]?.parentSpanId, part).toBe(event.spanId);
    expect(ask.service).toBe("duet-slack");
    expect(call.parentSpanId).toBe(ask.spanId);
    expect(agent.parentSpanId).toBe(call.spanId);
    expect(agent.service).toBe("duet-worker");
    expect(agent.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": roomOf(channel) });
    // One model call for this turn (Duet asks once, then runs what it wrote).
    expect(chats.map((c) => c.name)).toEqual(["chat fake-model"]);
    expect(chats[0].parentSpanId).toBe(agent.spanId);
    expect(chats[0].attributes).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.request.model": "fake-model", "gen_ai.response.finish_reasons": "stop" });
    expect(chats[0].attributes["duet.model.time_to_first_token_ms"]).toEqual(expect.any(Number));
    // The two commands, in order, each with its exit code and output size; under the turn.
    expect(tools.map((t) => [t.attributes["duet.command"], t.attributes["process.exit.code"], t.attributes["duet.command.output_bytes"]])).toEqual([
      ["echo one", 0, 4],
      ["printf two-two", 0, 7],
    ]);
    for (const t of tools) expect(t.parentSpanId).toBe(agent.spanId);
    // The executor was asked under each command's span.
    for (const t of tools) {
      const call = stack.executor!.calls.find((c) => c.command === t.attributes["duet.command"]);
      expect(call?.traceparent).toBe(`00-${t.traceId}-${t.spanId}-01`);
    }
    expect(tools[0].attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "shell" });
    // The answer's posting is under the bot's ask.
    expect(posts.length).toBeGreaterThan(0);
    for (const p of posts) expect(p.parentSpanId).toBe(ask.spanId);
    // Every span's parent is in the trace (none dangles), and the children sit inside their parents' time.
    for (const s of spans) if (s.parentSpanId) expect(byId.has(s.parentSpanId), s.name).toBe(true);

    // The tokens on the chat spans are the room's usage rows, exactly.
    const usage = await usageTokens(stack.client, roomOf(channel));
    expect(chatTokens(spans)).toEqual({ input: usage.input, output: usage.output });
    expect(usage.input).toBeGreaterThan(0);
    // The collector's key went with every export.
    expect(collector.requests.every((r) => r.headers["x-api-key"] === COLLECTOR_KEY)).toBe(true);
    // The bot's spans came through OpenTelemetry's SDK (its exporter, its resource), the Worker's through its own exporter.
    expect(collector.sentBy("duet-slack")).toEqual([{ userAgent: expect.stringMatching(/^OTel-OTLP-Exporter-JavaScript\//), sdk: "opentelemetry", language: "nodejs" }]);
    expect(collector.sentBy("duet-worker")).toEqual([{ userAgent: undefined, sdk: undefined, language: undefined }]);
  });

  it("holds no secret: a command's token is exported as chat shows it, redacted, and no key is in any span", async () => {
    const channel = newChannel();
    // The model writes the keys itself (SAY64): the person's text never held them, so only the span's redaction can hide them.
    const said = Buffer.from(`Pushing <run>echo ${GH_TOKEN} ${OPENAI_KEY}</run>`).toString("base64");
    const m = await mention(slack, bot, { channel, text: `SAY64: ${said}` });
    await answerTo(slack, m);
    // The Worker's side of the trace alone: what this test guards does not depend on the bot's spans joining it.
    const agentOf = (spans: SpanData[]) => spans.find((s) => s.name.startsWith("invoke_agent") && s.attributes["gen_ai.conversation.id"] === roomOf(channel));
    await collector.waitFor((all) => Boolean(agentOf(all) && all.some((s) => s.parentSpanId === agentOf(all)!.spanId && s.name.startsWith("execute_tool"))), "the command's span");
    const spans = collector.trace(agentOf(collector.spans)!.traceId);
    expect(named(spans, "execute_tool")[0].attributes["duet.command"]).toBe("echo ghp_[redacted] sk-[redacted]");
    const all = JSON.stringify(collector.spans);
    for (const secret of [GH_TOKEN, OPENAI_KEY, "a1B2c3D4e5F6g7H8", "AbCdEf0123456789", COLLECTOR_KEY, stack.token, slack.id.botToken]) expect(all).not.toContain(secret);
  });

  it("a malformed traceparent from a caller is answered (200) in a new trace; a well-formed one is joined", async () => {
    const room = roomOf(newChannel());
    for (const bad of ["zz-not-a-trace", `00-${"0".repeat(32)}-${"1".repeat(16)}-01`, `00-${"a".repeat(32)}-${"b".repeat(16)}-01-extra`, "x".repeat(10_000)]) {
      const answer = await stack.client.message(room, { text: "SAY: ok" }, { traceparent: bad });
      expect(answer.reply).toContain("ok");
    }
    const good = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" };
    await stack.client.message(room, { text: "SAY: joined" }, { traceparent: `00-${good.traceId}-${good.spanId}-01` });
    await collector.waitFor((spans) => spans.filter((s) => s.name.startsWith("invoke_agent") && s.attributes["gen_ai.conversation.id"] === room).length === 5, "five turns' spans");
    const agents = collector.spans.filter((s) => s.name.startsWith("invoke_agent") && s.attributes["gen_ai.conversation.id"] === room);
    const fresh = agents.filter((s) => s.traceId !== good.traceId);
    expect(fresh).toHaveLength(4);
    for (const s of fresh) expect(s.parentSpanId).toBeUndefined();
    expect(new Set(fresh.map((s) => s.traceId)).size).toBe(4);
    expect(agents.find((s) => s.traceId === good.traceId)?.parentSpanId).toBe(good.spanId);
  });

  it("a collector 10 s slow, then one refusing, then one gone: the turn still answers", async () => {
    collector.delayMs = 10_000;
    const slow = await mention(slack, bot, { channel: newChannel(), text: "SAY: despite-slow <run>echo ran</run>" });
    expect(readable((await answerTo(slack, slow))[0])).toContain("despite-slow");
    collector.delayMs = 0;
    collector.status = 503;
    const refused = await mention(slack, bot, { channel: newChannel(), text: "SAY: despite-refused" });
    expect(readable((await answerTo(slack, refused))[0])).toContain("despite-refused");
    await collector.close();
    const gone = await mention(slack, bot, { channel: newChannel(), text: "SAY: despite-gone <run>echo ran</run>" });
    expect(readable((await answerTo(slack, gone))[0])).toContain("despite-gone");
  });
});
