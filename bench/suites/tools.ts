import { startFakeMcp } from "../../test/fakes/mcp.ts";
import { sendTurn as send, startBenchStack, type BenchStack } from "../stack.ts";
import { single, summarize, type Result } from "../stats.ts";

/**
 * Tools a team plugs in, measured from outside as a client sees it, against a
 * fake MCP server (the official SDK's, over streamable HTTP) on 127.0.0.1:
 *
 * - The latency a tool call adds over a direct command of the same length: a
 *   turn whose answer calls the server's read-only tool beside one whose
 *   answer runs an instant `<run>` command (the executor answers at once),
 *   asked alternately in the same room; the difference is the call's own cost
 *   (the MCP session, the call, the result read and capped).
 * - Tokens added to the prompt per enabled server: the system prompt the fake
 *   model received with the server on, less the one with it off (4 characters a token).
 */

const SAMPLES = 50;
const TOOL_TURN = 'SAY: ok <tool name="tracker.lookup">{"id": 7}</tool>';
const RUN_TURN = "SAY: ok <run>echo issue 7: login fails on Safari</run>";

/** The system prompt the fake model received for the last turn. */
const lastSystem = (stack: BenchStack) => stack.model.calls.at(-1)?.messages.find((m) => m.role === "system")?.content ?? "";

export async function toolsSuite(samples = SAMPLES): Promise<Result[]> {
  const mcp = await startFakeMcp();
  const stack = await startBenchStack({ instantExecutor: true, vars: { DUET_TOOLS_ALLOW_PRIVATE: "1", DUET_STORE_KEY: "b".repeat(40) } });
  try {
    const workspace = "cli-benchtools";
    const room = workspace;
    await send(stack, room, "SAY: warm");
    const off = lastSystem(stack).length;
    await stack.client.putToolServer(workspace, "tracker", { url: `${mcp.url}/tracker` });
    await stack.client.enableTool(room, "tracker", "U1");
    await send(stack, room, "SAY: warm with tools");
    const on = lastSystem(stack).length;
    const tool: number[] = [];
    const run: number[] = [];
    for (let i = 0; i < samples; i++) {
      tool.push(await send(stack, room, TOOL_TURN));
      run.push(await send(stack, room, RUN_TURN));
    }
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    const mid = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)];
    return [
      summarize("tools: turn latency, a read-only MCP tool call", "ms", tool, `${samples} turns, the fake MCP server (official SDK, streamable HTTP) on 127.0.0.1`),
      summarize("tools: turn latency, a direct command of the same length", "ms", run, "asked alternately with the row above, same room; the executor answers at once"),
      single("tools: latency a tool call adds over a direct command (median)", "ms", Math.round((mid(tool) - mid(run)) * 100) / 100, samples, "median of the first row less the median of the second"),
      single("tools: tokens added to the prompt per enabled server", "tokens", Math.ceil((on - off) / 4), 1, "the system prompt's characters with the 2-tool server on less off, ÷ 4"),
    ];
  } finally {
    await stack.stop();
    await mcp.close();
  }
}
