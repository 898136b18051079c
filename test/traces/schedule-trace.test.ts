import type { SpanData } from "@duet/shared";
import { describe, expect, it } from "vitest";
import type { FakeCollector } from "../fakes/otlp.ts";
import type { FakeSlack } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { type BotHandle, bodyText, newChannel, readable, slash, slashResponse } from "../slack/harness.ts";
import { chatTokens, usageTokens } from "./token-sums.ts";
import { startTracedSlack } from "./traced-slack.ts";

/**
 * A scheduled ask is one trace: nobody's message starts it, so the room's
 * alarm opens a `duet.schedule` span, and the run's turn (its model call and
 * command) and the bot's delivery of its answer hang under it. The real bolt
 * bot and the real Worker export to a fake OTLP collector on 127.0.0.1.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;
let collector: FakeCollector;

startedForTests(
  // A one-second minimum interval, set for tests, so the room's own alarm runs the schedule.
  () => startTracedSlack({ DUET_SCHEDULE_MIN_INTERVAL_S: "1" }),
  (s) => ({ stack, slack, bots: [bot], collector } = s),
);

const named = (spans: SpanData[], prefix: string) => spans.filter((s) => s.name.startsWith(prefix));

describe("a scheduled ask's trace", () => {
  it("is one trace under its duet.schedule span: the turn, its model call and command, and the bot's delivery", async () => {
    const channel = newChannel();
    const room = `slack-${slack.id.teamId}-${channel}`;
    const { fields } = await slash(slack, bot, channel, "schedule every 1s SAY: traced report <run>echo sched-traced</run>");
    const id = /Id `([a-z0-9]+)`/.exec(bodyText(await slashResponse(slack, fields)))?.[1];
    expect(id).toBeTruthy();
    const posted = await slack.waitFor(
      () => slack.ws.channel(channel).find((m) => m.bot_id === slack.id.botId && !m.thread_ts && readable(m).includes(`Scheduled ask \`${id}\``)),
      "the first scheduled run's message",
    );
    expect(readable(posted)).toContain("sched-traced");
    await slash(slack, bot, channel, `unschedule ${id}`);

    // A run whose delivery reached the collector: its root is the schedule's span.
    const runOf = (spans: SpanData[]) =>
      spans.find((s) => s.name === "duet.schedule" && s.attributes["duet.schedule.id"] === id && spans.some((d) => d.traceId === s.traceId && d.name === "outbox.deliver"));
    await collector.waitFor((spans) => Boolean(runOf(spans)), "a scheduled run's trace with its delivery");
    const schedule = runOf(collector.spans)!;
    const spans = collector.trace(schedule.traceId);
    const byId = new Map(spans.map((s) => [s.spanId, s]));

    expect(spans.filter((s) => !s.parentSpanId)).toEqual([schedule]);
    expect(schedule.service).toBe("duet-worker");
    expect(schedule.attributes).toMatchObject({ "gen_ai.conversation.id": room, "duet.schedule.when": "every 1s", "http.response.status_code": 200 });
    const [agent] = named(spans, "invoke_agent");
    expect(agent.parentSpanId).toBe(schedule.spanId);
    expect(agent.attributes["gen_ai.conversation.id"]).toBe(room);
    expect(named(spans, "chat ").map((c) => c.parentSpanId)).toEqual([agent.spanId]);
    expect(named(spans, "execute_tool").map((t) => [t.attributes["duet.command"], t.parentSpanId])).toEqual([["echo sched-traced", agent.spanId]]);
    // The bot's delivery of the run's answer, in the same trace, under the turn.
    const [deliver] = named(spans, "outbox.deliver");
    expect(deliver.service).toBe("duet-slack");
    expect(deliver.parentSpanId).toBe(agent.spanId);
    expect(named(spans, "chat.deliver")[0]?.parentSpanId).toBe(deliver.spanId);
    for (const s of spans) if (s.parentSpanId) expect(byId.has(s.parentSpanId), s.name).toBe(true);

    // The runs' tokens on their chat spans are the room's usage rows, exactly: read once every run the rows
    // count has its turn's spans at the collector (a run that began before the unschedule may still be ending).
    const runs = () => collector.spans.filter((s) => s.name === "duet.schedule" && s.attributes["duet.schedule.id"] === id);
    const settled = async () => {
      const usage = await usageTokens(stack.client, room);
      const traces = runs().map((r) => collector.trace(r.traceId));
      const whole = traces.filter((t) => t.some((s) => s.name.startsWith("invoke_agent")) && t.some((s) => s.name.startsWith("chat ")));
      return whole.length === traces.length && traces.length === usage.turns ? { usage, spans: traces.flat() } : null;
    };
    let seen: Awaited<ReturnType<typeof settled>> = null;
    await expect.poll(async () => (seen = await settled()) !== null, { timeout: 15_000, interval: 100 }).toBe(true);
    const { usage, spans: all } = seen!;
    expect(usage.turns).toBeGreaterThanOrEqual(1);
    expect(chatTokens(all)).toEqual({ input: usage.input, output: usage.output });
    expect(usage.input).toBeGreaterThan(0);
  });
});
