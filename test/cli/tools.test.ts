import { describe, expect, it } from "vitest";
import { runDuet } from "../helpers/cli-run.ts";
import { startFakeMcp, type FakeMcp } from "../fakes/mcp.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { startStack, type Stack } from "../helpers/stack.ts";
import { filesHolding } from "../helpers/state-files.ts";

/**
 * `duet tools` through the CLI's entry point against real Workers and a fake
 * MCP server (the official SDK's): one Worker that may call local addresses
 * and seals headers, one set up as production is (no private addresses, and
 * here no key to seal headers with).
 */

let stack: Stack;
let bare: Stack;
let mcp: FakeMcp;

const STORE_KEY = "k".repeat(40);
const SECRET = "sk-live-tools-0123456789";

startedForTests(
  async () => {
    const started: { stop(): Promise<void> }[] = [];
    const stop = async () => {
      for (const s of started.reverse()) await s.stop();
    };
    try {
      const fake = await startFakeMcp();
      started.push({ stop: () => fake.close() });
      const withTools = await startStack({ vars: { DUET_TOOLS_ALLOW_PRIVATE: "1", DUET_STORE_KEY: STORE_KEY } });
      started.push(withTools);
      const production = await startStack();
      started.push(production);
      return { withTools, production, fake, stop };
    } catch (err) {
      await stop();
      throw err;
    }
  },
  (s) => ({ withTools: stack, production: bare, fake: mcp } = s),
);

/** `duet ...argv`: the exit code and what it printed. */
const duet = runDuet;

describe("duet tools", () => {
  it("adds a server whose header value is never shown, lists it with its tools, turns it on and off in the room, and removes it", async () => {
    const room = "cli-tools";
    expect(await duet(stack, "tools", room)).toEqual({ code: 0, out: "No tool servers are added in this workspace; `duet tools cli-tools add NAME URL` adds one.", err: "" });

    const url = `${mcp.url}/tracker`;
    const added = await duet(stack, "tools", room, "add", "tracker", url, `X-Api-Key=${SECRET}`, `Authorization=Bearer ${SECRET}`);
    expect(added).toEqual({
      code: 0,
      out: expect.stringMatching(
        /^cli:\S+ added the tool server `tracker` \(`http:\/\/127\.0\.0\.1:\d+\/tracker`; headers X-Api-Key \(value hidden\), Authorization \(value hidden\)\) in this workspace; `duet tools cli-tools room on tracker` turns it on in a room\.$/,
      ),
      err: "",
    });

    const listed = await duet(stack, "tools", room);
    expect(listed.code).toBe(0);
    expect(listed.out.split("\n")).toEqual([
      "Tool servers in this workspace (`duet tools cli-tools room on NAME` turns one on here):",
      `• \`tracker\` \`${url}\`; headers X-Api-Key (value hidden), Authorization (value hidden): off here; tools \`lookup\` (read-only), \`close_issue\``,
    ]);
    for (const seen of [added, listed]) expect(`${seen.out}${seen.err}`).not.toContain(SECRET);

    expect((await duet(stack, "tools", room, "room", "on", "tracker")).out).toMatch(/^cli:\S+ turned the tool server `tracker` on in this room: Duet may call its tools here\.$/);
    expect(await stack.client.roomTools(room)).toEqual({ workspace: room, tools: ["tracker"] });
    expect((await duet(stack, "tools", room)).out).toContain(": on here; tools `lookup` (read-only), `close_issue`");

    expect((await duet(stack, "tools", room, "room", "off", "tracker")).out).toMatch(/^cli:\S+ turned the tool server `tracker` off in this room\.$/);
    expect(await stack.client.roomTools(room)).toEqual({ workspace: room, tools: [] });
    expect(await duet(stack, "tools", room, "room", "off", "tracker")).toEqual({ code: 0, out: "The tool server `tracker` is not on in this room; nothing changed.", err: "" });

    expect((await duet(stack, "tools", room, "remove", "tracker")).out).toMatch(/^cli:\S+ removed the tool server `tracker` from this workspace; no room can call it now\.$/);
    expect(await stack.client.toolServers(room)).toEqual({ servers: [] });
    const gone = "No tool server named `tracker` in this workspace; `duet tools cli-tools add tracker URL` adds it. Nothing changed.";
    expect(await duet(stack, "tools", room, "remove", "tracker")).toEqual({ code: 0, out: gone, err: "" });
    expect(await duet(stack, "tools", room, "room", "on", "tracker")).toEqual({ code: 0, out: gone, err: "" });
    expect(await stack.client.roomTools(room)).toEqual({ workspace: room, tools: [] });
  });

  it("a server that answers no JSON-RPC is listed with the line that says so", async () => {
    const room = "cli-junk";
    expect((await duet(stack, "tools", room, "add", "junk", `${mcp.url}/garbage`)).code).toBe(0);
    const listed = await duet(stack, "tools", room);
    expect(listed.code).toBe(0);
    expect(listed.out.split("\n")[1]).toMatch(/^• `junk` `http:\/\/127\.0\.0\.1:\d+\/garbage`: off here; its tools could not be listed \(.+\)$/);
  });

  it("empty, oversized, malformed and hostile input are usage errors on one line (exit 2) that never quote a header, and nothing is saved", async () => {
    const room = "cli-bad";
    const url = `${mcp.url}/tracker`;
    const cases: [string[], string][] = [
      [["add"], "Give the server a name and its address"],
      [["add", "tracker"], "Give the server a name and its address"],
      [["remove"], "Name one server to remove"],
      [["room", "on"], "Say on or off and name one server"],
      [["room", "sideways", "tracker"], "Say on or off and name one server"],
      [["delete", "tracker"], "Tools takes one of"],
      [["add", "n".repeat(40), url], "Server name must be 1-32 characters"],
      [["add", "<@U1>", url], "Server name must be"],
      [["add", "@everyone", url], "Server name must be"],
      [["remove", "$(touch /tmp/x)"], "Name one server to remove"],
      [["add", "t", "file:///etc/passwd"], "URL must be an absolute http(s) address"],
      [["add", "t", `https://admin:${SECRET}@mcp.example.com/`], "URL must not carry credentials"],
      [["add", "t", `${url}/${"p".repeat(2001)}`], "URL must be at most 2000 characters"],
      [["add", "t", url, SECRET], "Give each header as Name=value"],
      [["add", "t", url, `Content-Type=${SECRET}`], "Duet sets content-type, accept and the MCP headers itself"],
      [["add", "t", url, `X-Key=${SECRET}\n@here`], "Give each header as Name=value"],
      [["add", "t", url, `X-Key=${"v".repeat(4097)}`], "Header values must be one line of at most 4096 characters"],
    ];
    for (const [args, rule] of cases) {
      const seen = await duet(stack, "tools", room, ...args);
      expect([args[0], seen.code, seen.out]).toEqual([args[0], 2, ""]);
      const [line, hint, ...more] = seen.err.split("\n");
      expect(line).toMatch(/^duet tools: /);
      expect(line).toContain(rule);
      expect(line).not.toMatch(/sk-live|<@U1>|@everyone|@here|touch|passwd|nnnnnnnnnn|vvvvvvvvvv|pppppppppp/);
      expect([hint, more]).toEqual(["Run `duet --help` for the commands.", []]);
    }
    expect(await stack.client.toolServers(room)).toEqual({ servers: [] });
  });

  it("a Worker set up for production refuses a private address, and headers it has no key to seal, each on one line, and saves nothing", async () => {
    const room = "cli-prod";
    expect(await duet(bare, "tools", room, "add", "tracker", `${mcp.url}/tracker`)).toEqual({
      code: 1,
      out: "",
      err: "That request was not accepted: URL must be https.",
    });
    expect(await duet(bare, "tools", room, "add", "tracker", "https://127.0.0.1/mcp")).toEqual({
      code: 1,
      out: "",
      err: "That request was not accepted: 127.0.0.1 is a private or local address, which Duet does not call.",
    });
    const sealed = await duet(bare, "tools", room, "add", "tracker", "https://mcp.example.com/mcp", `X-Api-Key=${SECRET}`);
    expect(sealed).toEqual({
      code: 1,
      out: "",
      err: "A tool server's headers are kept sealed, and the Worker has no DUET_STORE_KEY of at least 32 characters to seal them with: an admin sets one (see docs/configuration.md).",
    });
    expect(await bare.client.toolServers(room)).toEqual({ servers: [] });
  });
});

describe("duet ask with a tool server on", () => {
  const callsOf = (tool: string, id: number) => mcp.calls.filter((c) => c.tool === tool && (c.args as { id?: number }).id === id).length;

  it("answers with a read-only tool's result at once; under approve a destructive call waits for `duet approve`, runs once and is audited; another room neither sees nor reaches it", async () => {
    const room = "cli-calls";
    const id = Date.now() % 1_000_000;
    expect((await duet(stack, "tools", room, "add", "desk", `${mcp.url}/tracker`)).code).toBe(0);
    expect((await duet(stack, "tools", room, "room", "on", "desk")).code).toBe(0);
    expect((await duet(stack, "policy", room, "approve")).code).toBe(0);

    // An answer made only of read-only calls waits for nobody.
    const looked = await duet(stack, "ask", room, `SAY: Looking. <tool name="desk.lookup">{"id": ${id}}</tool>`);
    expect(looked.code).toBe(0);
    expect(looked.out).toContain(`issue ${id}: login fails on Safari (open)`);
    expect(looked.out).not.toContain("Waiting for approval");
    expect(callsOf("lookup", id)).toBe(1);

    const asked = await duet(stack, "ask", room, `SAY: Closing. <tool name="desk.close_issue">{"id": ${id}}</tool>`);
    expect(asked.out).toContain("Waiting for approval");
    expect(asked.out).toContain(`tool: desk.close_issue {"id":${id}}`);
    expect(callsOf("close_issue", id)).toBe(0);
    const approved = await duet(stack, "approve", room, "1");
    expect(approved.code).toBe(0);
    expect(approved.out).toMatch(new RegExp(`cli:\\S+ ran \`tool: desk\\.close_issue \\{"id":${id}\\}\``));
    expect(approved.out).toContain(`closed issue ${id}`);
    expect(callsOf("close_issue", id)).toBe(1);
    expect((await duet(stack, "approve", room, "1")).code).not.toBe(0);
    expect(callsOf("close_issue", id)).toBe(1);
    const audit = await duet(stack, "audit", room);
    expect(audit.out).toMatch(new RegExp(`· \`tool: desk\\.close_issue \\{"id":${id}\\}\` run by cli:\\S+, proposed for cli:\\S+ \\(exit 0, \\d+ ms\\)`));

    // A terminal's room is its own workspace: another one has no such server.
    const other = await duet(stack, "ask", "cli-calls-other", `SAY: <tool name="desk.lookup">{"id": ${id + 1}}</tool>`);
    expect(other.out).toContain("desk is not a tool server enabled in this room, so the call was not made");
    expect(callsOf("lookup", id + 1)).toBe(0);
  });
});

describe("duet tools after a Worker restart", () => {
  it("the server is still on in the room, and the next call reaches it with its header, which no state file holds", async () => {
    const room = "cli-restart";
    const key = `sk-live-restart-${Date.now()}`;
    expect((await duet(stack, "tools", room, "add", "keyed", `${mcp.url}/echo`, `X-Api-Key=${key}`)).code).toBe(0);
    expect((await duet(stack, "tools", room, "room", "on", "keyed")).code).toBe(0);
    const seenKeys = () => mcp.calls.filter((c) => c.path === "/echo" && (c.args as { key?: string }).key === key).length;
    expect((await duet(stack, "ask", room, 'SAY: Before. <tool name="keyed.whoami">{}</tool>')).out).toContain("it was sent [redacted]");

    // Sealed at rest: no file of the Worker's state (databases, write-ahead logs included) holds the header's value.
    expect(filesHolding(stack.persistDir, "X-Api-Key").length).toBeGreaterThan(0);
    expect(filesHolding(stack.persistDir, key)).toEqual([]);
    await stack.restartWorker();
    const after = await duet(stack, "ask", room, 'SAY: After. <tool name="keyed.whoami">{}</tool>');
    expect(after.out).toContain("it was sent [redacted]");
    expect(`${after.out}${after.err}`).not.toContain(key);
    expect(seenKeys()).toBe(2);
  });
});
