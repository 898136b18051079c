import type { SpanData } from "@duet/shared";
import type { FakeCollector } from "../fakes/otlp.ts";

/** The spans whose names begin with `prefix`, in the order they arrived. */
export const named = (spans: SpanData[], prefix: string) => spans.filter((s) => s.name.startsWith(prefix));

/**
 * The trace of the room's Worker turn (its `invoke_agent` span), once it and
 * the bot's ask arrived in the collector and `ready` (when given) holds for it.
 */
export async function turnTrace(collector: FakeCollector, room: string, ready: (trace: SpanData[]) => boolean = () => true): Promise<SpanData[]> {
  const agentOf = (spans: SpanData[]) => spans.find((s) => s.name.startsWith("invoke_agent") && s.attributes["gen_ai.conversation.id"] === room);
  await collector.waitFor((spans) => {
    const agent = agentOf(spans);
    const mine = agent ? spans.filter((s) => s.traceId === agent.traceId) : [];
    return mine.some((s) => s.name === "duet.ask") && ready(mine);
  }, `the trace of ${room}`);
  return collector.trace(agentOf(collector.spans)!.traceId);
}

/** A Slack turn's trace in its parts: the bot's ask and its call to the Worker, the turn, its model calls and commands, the posts. */
export function slackTurnParts(spans: SpanData[]) {
  return {
    byId: new Map(spans.map((s) => [s.spanId, s])),
    ask: named(spans, "duet.ask")[0],
    call: named(spans, "POST /message")[0],
    agent: named(spans, "invoke_agent")[0],
    chats: named(spans, "chat "),
    tools: named(spans, "execute_tool"),
    posts: spans.filter((s) => /^chat\.(post|edit|live\.finish)/.test(s.name)),
  };
}
