import { describe, expect, it } from "vitest";
import type { FakeCollector } from "../fakes/otlp.ts";
import { startFakeMcp, type FakeMcp } from "../fakes/mcp.ts";
import type { FakeSlack } from "../fakes/slack/index.ts";
import { startedBeside, startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, mention, newChannel, readable } from "../slack/harness.ts";
import { chatTokens, usageTokens } from "./token-sums.ts";
import { startTracedSlack } from "./traced-slack.ts";
import { named, slackTurnParts, turnTrace } from "./turn-trace.ts";

/**
 * A turn that calls a room's MCP tool and runs two commands, traced: the real
 * bolt bot, the real Worker (which may call local addresses) and a fake MCP
 * server built with the official SDK, all exporting to a fake OTLP collector.
 * The tool's call is its own `execute_tool server.tool` span beside the
 * commands' `execute_tool shell` ones, under the one turn.
 */

// Assembled from pieces, as the redaction tests do, so scanners do not take it for a leaked key.
const GH_TOKEN = ["ghp_", "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"].join("");

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;
let collector: FakeCollector;
let mcp: FakeMcp;

startedForTests(
  () => startedBeside(startFakeMcp, () => startTracedSlack({ DUET_TOOLS_ALLOW_PRIVATE: "1", DUET_STORE_KEY: "t".repeat(40) })),
  (s) => ({ stack, slack, bots: [bot], collector, fake: mcp } = s),
);

const roomOf = (channel: string) => `slack-${slack.id.teamId}-${channel}`;

describe("a Slack mention whose turn calls a tool and runs two commands", () => {
  it("is one trace: the bot's ask, invoke_agent, its chat, the tool's execute_tool and the two commands' under it, the posts; tokens are the usage rows", async () => {
    const channel = newChannel();
    const room = roomOf(channel);
    await stack.client.putToolServer(`slack-${slack.id.teamId}`, "tracker", { url: `${mcp.url}/tracker`, userId: "U0ALICE" });
    await stack.client.enableTool(room, "tracker", "U0ALICE");
    // The model writes the token into the tool's arguments itself: only the span's redaction can hide it.
    const said = `Looking <tool name="tracker.lookup">{"id": 4040, "note": "${GH_TOKEN}"}</tool> then <run>echo one</run> <run>printf two-two</run>`;
    const m = await mention(slack, bot, { channel, text: `SAY64: ${Buffer.from(said).toString("base64")}` });
    const shown = readable((await answerTo(slack, m))[0]);
    expect(shown).toContain("issue 4040: login fails on Safari (open)");
    expect(shown).toContain("two-two");

    const spans = await turnTrace(collector, room, (trace) => named(trace, "execute_tool").length === 3);
    const { byId, ask, call, agent, chats, tools, posts } = slackTurnParts(spans);

    // One root, the Slack event; the Worker's turn under the bot's call to it.
    const roots = spans.filter((s) => !s.parentSpanId);
    expect(roots.map((s) => [s.service, s.name.split(".")[0]])).toEqual([["duet-slack", "slack"]]);
    expect(ask.parentSpanId).toBe(roots[0].spanId);
    expect(call.parentSpanId).toBe(ask.spanId);
    expect(agent.parentSpanId).toBe(call.spanId);
    expect(agent.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": room });
    // The model was asked once, and its tokens are on that call.
    expect(chats.map((c) => c.name)).toEqual(["chat fake-model"]);
    expect(chats[0].parentSpanId).toBe(agent.spanId);
    expect(chats[0].attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
    expect(chats[0].attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);

    // The tool's call, then the two commands, in the order written, each a child of the turn.
    expect(tools.map((t) => [t.name, t.attributes["gen_ai.tool.name"], t.attributes["duet.command"], t.attributes["process.exit.code"]])).toEqual([
      ["execute_tool tracker.lookup", "tracker.lookup", 'tool: tracker.lookup {"id":4040,"note":"ghp_[redacted]"}', 0],
      ["execute_tool shell", "shell", "echo one", 0],
      ["execute_tool shell", "shell", "printf two-two", 0],
    ]);
    for (const t of tools) expect(t.parentSpanId, t.name).toBe(agent.spanId);
    for (const t of tools) expect(t.attributes["gen_ai.operation.name"]).toBe("execute_tool");
    expect(tools[0].attributes["duet.command.output_bytes"]).toBe("issue 4040: login fails on Safari (open)".length);
    // The tool server was called (the token went to it, as the model wrote it); the sandbox never saw the tool's call.
    expect(mcp.calls).toContainEqual({ path: "/tracker", tool: "lookup", args: { id: 4040 } });
    expect(stack.executor!.calls.some((c) => c.command.includes("tracker.lookup"))).toBe(false);

    expect(posts.length).toBeGreaterThan(0);
    for (const p of posts) expect(p.parentSpanId).toBe(ask.spanId);
    for (const s of spans) if (s.parentSpanId) expect(byId.has(s.parentSpanId), s.name).toBe(true);
    expect(JSON.stringify(collector.spans)).not.toContain(GH_TOKEN.slice(4, 20));

    const usage = await usageTokens(stack.client, room);
    expect(chatTokens(spans)).toEqual({ input: usage.input, output: usage.output });
    expect(usage.turns).toBe(1);
  });
});
