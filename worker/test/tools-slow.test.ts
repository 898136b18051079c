import { describe, expect, it } from "vitest";
import { history, send } from "./helpers.ts";
import { addServer, enable, mcpSeen, workspace } from "./tools-helpers.ts";

/** DUET_TOOL_TIMEOUT_MS in worker/vitest.config.ts. */
const TOOL_TIMEOUT_MS = 3000;

describe("a tool server that never answers", () => {
  it("gets a clear line within the tool timeout (streamable HTTP and HTTP+SSE alike), the turn finishes with the next call's result, and the call is never made again", async () => {
    const { ws, roomA } = workspace();
    await addServer(ws, "hang", "/hang");
    await addServer(ws, "wiki", "/legacy");
    await addServer(ws, "tracker", "/tracker");
    for (const s of ["hang", "wiki", "tracker"]) await enable(roomA, s);
    const id = Number.parseInt(Date.now().toString().slice(-7), 10);
    const text = `SAY: <tool name="hang.hold">{"tag": "${ws}"}</tool> <tool name="wiki.hold">{"tag": "${ws}"}</tool> <tool name="tracker.lookup">{"id": ${id}}</tool> (${ws}-slow)`;

    const turn = await send(roomA, text, { idempotencyKey: `${ws}-slow`, userId: "U-asker" });
    expect(turn.status).toBe(200);
    const silent = `did not answer within ${TOOL_TIMEOUT_MS / 1000} s`;
    expect(turn.body.runs).toMatchObject([
      { cmd: `tool: hang.hold {"tag":"${ws}"}`, exitCode: null, error: `tool server hang: it ${silent}` },
      { cmd: `tool: wiki.hold {"tag":"${ws}"}`, exitCode: null, error: `tool server wiki: it ${silent}` },
      { cmd: `tool: tracker.lookup {"id":${id}}`, exitCode: 0, stdout: `issue ${id}: login fails on Safari (open)` },
    ]);
    // Each was given up on at the timeout, not long after it.
    for (const run of turn.body.runs.slice(0, 2)) {
      expect(run.durationMs).toBeGreaterThanOrEqual(TOOL_TIMEOUT_MS - 50);
      expect(run.durationMs).toBeLessThan(TOOL_TIMEOUT_MS + 2000);
    }
    expect(turn.body.reply).toContain(`tool server hang: it ${silent}`);
    expect(turn.body.reply).toContain(`tool server wiki: it ${silent}`);
    expect(turn.body.reply).toContain(`issue ${id}: login fails on Safari (open)`);

    // Nothing is lost: the answer is the room's history, and asking again with the same key replays it.
    const kept = await history(roomA);
    expect(kept.at(-1)).toMatchObject({ role: "agent", text: turn.body.reply });
    const replay = await send(roomA, text, { idempotencyKey: `${ws}-slow`, userId: "U-asker" });
    expect(replay.body.reply).toBe(turn.body.reply);

    // The barrier: a later call to another tool reaches the fake; by then neither silent call was made again.
    const after = await send(roomA, `SAY: <tool name="tracker.lookup">{"id": ${id + 1}}</tool>`);
    expect(after.body.runs).toMatchObject([{ exitCode: 0, stdout: `issue ${id + 1}: login fails on Safari (open)` }]);
    const mine = (await mcpSeen()).calls.filter((c) => JSON.stringify(c.args).includes(ws) || [id, id + 1].includes((c.args as { id?: number }).id!));
    expect(mine).toEqual([
      { path: "/hang", tool: "hold", args: { tag: ws } },
      { path: "/legacy", tool: "hold", args: { tag: ws } },
      { path: "/tracker", tool: "lookup", args: { id } },
      { path: "/tracker", tool: "lookup", args: { id: id + 1 } },
    ]);
  });
});
