import { describe, expect, it } from "vitest";
import { audit } from "./control-helpers.ts";
import { api, send } from "./helpers.ts";
import { addServer, enable, mcpCalls, mcpSeen, systemPromptFor, workspace } from "./tools-helpers.ts";

describe("a tool server on the older HTTP+SSE transport", () => {
  it("is listed with its tools, and a room with it on answers with its read-only tool's result, its headers sent on the stream and every post", async () => {
    const { ws, roomA } = workspace();
    const key = `legacykey${Date.now()}abcdef`;
    await addServer(ws, "wiki", "/legacy", { "x-api-key": key });
    const listed = (await (await api(`/api/tools/${ws}`)).json()) as { servers: { name: string; tools: unknown[]; error?: string }[] };
    expect(listed.servers).toMatchObject([
      {
        name: "wiki",
        tools: expect.arrayContaining([{ name: "search", description: "Searches the wiki", readOnly: true }]),
      },
    ]);
    expect(listed.servers[0].error).toBeUndefined();
    await enable(roomA, "wiki");

    const turn = await send(roomA, `SAY: Searching. <tool name="wiki.search">{"query": "${ws}"}</tool> (${ws}-ask)`, { userId: "U-asker" });
    expect(turn.status).toBe(200);
    expect(turn.body.reply).toContain(`Output (tool: wiki.search {"query":"${ws}"}):\n2 wiki pages mention ${ws}: Onboarding, Release checklist`);
    expect(turn.body.runs).toMatchObject([{ cmd: `tool: wiki.search {"query":"${ws}"}`, exitCode: 0, stdout: `2 wiki pages mention ${ws}: Onboarding, Release checklist` }]);
    expect(await systemPromptFor(`${ws}-ask`)).toContain('- wiki.search (read-only): Searches the wiki. Input: {"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}');
    expect((await audit(roomA)).map((e) => [e.kind, e.cmd, e.exitCode])).toEqual([["auto", `tool: wiki.search {"query":"${ws}"}`, 0]]);
    expect(await mcpCalls("search")).toContainEqual({ query: ws });
    // Each session: initialize, initialized, then the request, all posted to the endpoint the stream named, with the header.
    const posts = (await mcpSeen()).posts.filter((p) => p.key === key);
    expect(posts.map((p) => p.method)).toEqual(["initialize", "notifications/initialized", "tools/list", "initialize", "notifications/initialized", "tools/call"]);
    expect(new Set(posts.map((p) => p.path))).toEqual(new Set(["/legacy"]));
  });

  it("has its results capped as any server's: a huge one cut, past 4 MB not read", async () => {
    const { ws, roomA } = workspace();
    await addServer(ws, "wiki", "/legacy");
    await enable(roomA, "wiki");
    const turn = await send(roomA, `SAY: <tool name="wiki.dump">{"bytes": 300000}</tool> <tool name="wiki.dump">{"bytes": 5000000}</tool>`);
    const [capped, refused] = turn.body.runs;
    expect(capped).toMatchObject({ exitCode: 0, truncated: true });
    expect(capped.stdout.length).toBeLessThanOrEqual(64 * 1024);
    expect(refused).toMatchObject({ exitCode: null, error: "tool server wiki: it answered more than 4 MB, which Duet does not read" });
    expect(turn.body.reply.length).toBeLessThan(70 * 1024);
  });
});

describe("hostile HTTP+SSE tool servers", () => {
  it("an endpoint on another origin is refused and nothing is posted there; a stream without an endpoint, malformed answers and a server of neither transport each get a clear line", async () => {
    const { ws, roomA } = workspace();
    const key = `offsitekey${Date.now()}abcdef`;
    await addServer(ws, "offsite", "/legacy-offsite", { "x-api-key": key });
    await addServer(ws, "mute", "/legacy-mute");
    await addServer(ws, "garbled", "/legacy-garbage");
    await addServer(ws, "nowhere", "/no-such-server");
    for (const s of ["offsite", "mute", "garbled", "nowhere"]) await enable(roomA, s);
    const calls = ["offsite", "mute", "garbled", "nowhere"].map((s) => `<tool name="${s}.search">{"query": "${ws}"}</tool>`).join(" ");
    const turn = await send(roomA, `SAY: ${calls} (${ws}-hostile)`);
    expect(turn.status).toBe(200);
    // The off-origin endpoint is the same fake under another name: had Duet posted there, the fake would have seen it.
    expect((await mcpSeen()).posts.filter((p) => p.key === key || p.path === "/legacy-offsite")).toEqual([]);
    expect(await mcpCalls("search")).not.toContainEqual({ query: ws });
    const lines = {
      offsite: "it named an endpoint on another origin, which Duet does not post to",
      mute: "its event stream ended before it named an endpoint to post to",
      garbled: "it answered something that is not JSON-RPC",
      nowhere: "it answered HTTP 404",
    };
    const prompt = await systemPromptFor(`${ws}-hostile`);
    for (const [server, line] of Object.entries(lines)) expect(prompt).toContain(`- ${server}: its tools could not be listed (${line}), so none of them can be called now`);
    expect(turn.body.runs.map((r: { error?: string }) => r.error)).toEqual(Object.entries(lines).map(([server, line]) => `tool server ${server}: ${line}`));
    for (const line of Object.values(lines)) expect(turn.body.reply).toContain(line);
  });
});
