import type { SpanData } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { startFakeCollector, type FakeCollector } from "../fakes/otlp.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { type DiscordHarness, mentionAnswer, startDiscordSetup } from "../discord/harness.ts";

/**
 * A Discord mention's trace: the real discord.js bot and the real Worker
 * export to a fake OTLP collector, and the message's span is the root, with
 * the typing that acknowledges it, the ask, the Worker's turn and the reply under it.
 */

let h: DiscordHarness;
let collector: FakeCollector;

startedForTests(
  async () => {
    collector = await startFakeCollector();
    const otlp = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url };
    const setup = await startDiscordSetup({ env: () => otlp, stack: { vars: otlp } });
    return { ...setup, stop: async () => (await setup.stop(), await collector.close()) };
  },
  (s) => ({ h } = s),
);

const named = (spans: SpanData[], prefix: string) => spans.filter((s) => s.name.startsWith(prefix));

describe("a Discord mention's trace", () => {
  it("is one trace under the message's span: its typing, the ask, the Worker's turn with its command, and the reply", async () => {
    const ch = h.fake.addChannel(h.guildId, "traced");
    const room = `discord-${h.guildId}-${ch}`;
    const msg = h.fake.message(ch, "SAY: Traced <run>echo discord-traced</run>", { mention: true });
    const [answer] = await mentionAnswer(h, msg);
    expect(answer.content).toContain("discord-traced");

    const rootOf = (spans: SpanData[]) => spans.find((s) => s.name === "discord.message_create" && s.attributes["duet.event.id"] === msg.id);
    await collector.waitFor((spans) => {
      const root = rootOf(spans);
      return Boolean(root && spans.some((s) => s.traceId === root.traceId && s.name.startsWith("invoke_agent")));
    }, "the mention's trace");
    const root = rootOf(collector.spans)!;
    const spans = collector.trace(root.traceId);
    const byId = new Map(spans.map((s) => [s.spanId, s]));

    expect(spans.filter((s) => !s.parentSpanId)).toEqual([root]);
    expect(root.service).toBe("duet-discord");
    expect(root.attributes["gen_ai.conversation.id"]).toBe(room);
    // The acknowledgement (typing) and the ask hang under the message's span.
    const [ask] = named(spans, "duet.ask");
    expect(ask.parentSpanId).toBe(root.spanId);
    expect(named(spans, "chat.typing").map((s) => s.parentSpanId)).toEqual([root.spanId]);
    // The Worker's turn under the bot's call, its command under the turn, the reply under the ask.
    const [call] = named(spans, "POST /message");
    const [agent] = named(spans, "invoke_agent");
    expect(call.parentSpanId).toBe(ask.spanId);
    expect(agent.parentSpanId).toBe(call.spanId);
    expect(agent.attributes["gen_ai.conversation.id"]).toBe(room);
    expect(named(spans, "execute_tool").map((t) => [t.attributes["duet.command"], t.parentSpanId])).toEqual([["echo discord-traced", agent.spanId]]);
    const posts = spans.filter((s) => /^chat\.(post|edit|live\.finish)/.test(s.name));
    expect(posts.length).toBeGreaterThan(0);
    for (const p of posts) expect(p.parentSpanId).toBe(ask.spanId);
    for (const s of spans) if (s.parentSpanId) expect(byId.has(s.parentSpanId), s.name).toBe(true);
    // The bot's spans came through OpenTelemetry's SDK.
    expect(collector.sentBy("duet-discord")).toEqual([{ userAgent: expect.stringMatching(/^OTel-OTLP-Exporter-JavaScript\//), sdk: "opentelemetry", language: "nodejs" }]);
  });

  it("a message that does not mention Duet makes no span", async () => {
    const ch = h.fake.addChannel(h.guildId, "unmentioned");
    const chatter = h.fake.message(ch, "just people talking");
    // Barrier: a mention after it, whose trace arrives once the bot handled both in order.
    const later = h.fake.message(ch, "SAY: after-chatter", { mention: true });
    await mentionAnswer(h, later);
    await collector.waitFor((spans) => spans.some((s) => s.name === "discord.message_create" && s.attributes["duet.event.id"] === later.id), "the barrier mention's span");
    expect(collector.spans.filter((s) => s.attributes["duet.event.id"] === chatter.id)).toEqual([]);
  });
});
