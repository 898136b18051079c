import { describe, expect, it } from "vitest";
import { blockTexts, type FakeSlack, type SlackMessage } from "../fakes/slack/index.ts";
import { startFakeMcp, type FakeMcp } from "../fakes/mcp.ts";
import { startedBeside, startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, click, mention, newChannel, readable, slash, slashResponse, startSlackSetup } from "./harness.ts";

/**
 * `/duet tools` end to end: the real bolt app against the fake Slack, the real
 * Worker (which may call local addresses and seals headers), and a fake MCP
 * server built with the official SDK. Only U0ALICE may change the run policy,
 * so only she may add, remove, or turn a server on or off.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;
let mcp: FakeMcp;

const SECRET = "sk-live-slack-0123456789";

startedForTests(
  () => startedBeside(startFakeMcp, () => startSlackSetup([{ SLACK_ALLOW_POLICY: "U0ALICE" }], { vars: { DUET_TOOLS_ALLOW_PRIVATE: "1", DUET_STORE_KEY: "s".repeat(40) } })),
  (s) => ({ stack, slack, bots: [bot], fake: mcp } = s),
);

const roomOf = (channel: string) => `slack-${slack.id.teamId}-${channel}`;
const workspace = () => `slack-${slack.id.teamId}`;

/** The message a response_url body shows (its blocks; `text` is only the notification). */
const shown = (body: Record<string, unknown>) => ((body.blocks ?? []) as Parameters<typeof blockTexts>[0][]).flatMap(blockTexts).join("\n");

/** `/duet tools <text>` from `user`: what they see and whether the channel sees it too. */
async function tools(channel: string, text: string, user = "U0ALICE") {
  const { fields } = await slash(slack, bot, channel, `tools ${text}`.trim(), user);
  const body = await slashResponse(slack, fields);
  return { text: shown(body), visibility: body.response_type as string };
}

const serverNames = async () => (await stack.client.toolServers(workspace())).servers.map((s) => s.name);

describe("Slack: /duet tools", () => {
  it("adds a server for everyone to see with its header's value hidden, lists it to the asker alone, and turns it on and off here", async () => {
    const channel = newChannel();
    // Slack sends a typed address as a link.
    const added = await tools(channel, `add tracker <${mcp.url}/tracker> X-Api-Key=${SECRET}`);
    expect(added).toEqual({
      text: `:toolbox: <@U0ALICE> added the tool server \`tracker\` (\`${mcp.url}/tracker\`; headers X-Api-Key (value hidden)) in this workspace; \`/duet tools room on tracker\` turns it on in a room.`,
      visibility: "in_channel",
    });
    const listed = await tools(channel, "", "U0BOB");
    expect(listed.visibility).toBe("ephemeral");
    expect(listed.text).toContain(`• \`tracker\` \`${mcp.url}/tracker\`; headers X-Api-Key (value hidden): off here; tools \`lookup\` (read-only), \`close_issue\``);
    for (const seen of [added, listed]) expect(seen.text).not.toContain(SECRET);

    expect(await tools(channel, "room on tracker")).toEqual({
      text: ":toolbox: <@U0ALICE> turned the tool server `tracker` on in this room: Duet may call its tools here.",
      visibility: "in_channel",
    });
    expect(await stack.client.roomTools(roomOf(channel))).toEqual({ workspace: workspace(), tools: ["tracker"] });
    expect((await tools(channel, "", "U0BOB")).text).toContain("`tracker` `");
    expect((await tools(channel, "", "U0BOB")).text).toContain(": on here; tools `lookup` (read-only)");
    expect(await tools(channel, "room off tracker")).toEqual({ text: ":toolbox: <@U0ALICE> turned the tool server `tracker` off in this room.", visibility: "in_channel" });
    // Again: nothing to turn off, said to the asker alone.
    expect(await tools(channel, "room off tracker")).toEqual({ text: ":toolbox: The tool server `tracker` is not on in this room; nothing changed.", visibility: "ephemeral" });
    expect(await tools(channel, "room on nosuch")).toEqual({
      text: ":toolbox: No tool server named `nosuch` in this workspace; `/duet tools add nosuch URL` adds it. Nothing changed.",
      visibility: "ephemeral",
    });
  });

  it("adding and removing a server are in the audit of the room they were done from, with who did each; a removal of no server audits nothing", async () => {
    const channel = newChannel();
    const elsewhere = newChannel();
    await tools(channel, `add audited <${mcp.url}/tracker> X-Api-Key=${SECRET}`);
    await tools(channel, "remove audited");
    // Nothing to remove: nothing changed, nothing audited.
    expect((await tools(channel, "remove audited")).visibility).toBe("ephemeral");
    const audit = shown(await slashResponse(slack, (await slash(slack, bot, channel, "audit", "U0BOB")).fields));
    expect(audit).toContain(`<@U0ALICE> added the tool server \`audited\` (\`${mcp.url}/tracker\`) to the workspace`);
    expect(audit).toContain("<@U0ALICE> removed the tool server `audited` from the workspace");
    expect(audit).not.toContain(SECRET);
    const entries = (await stack.client.audit(roomOf(channel))).entries;
    expect(entries.map((e) => [e.kind, e.server, e.requestedBy])).toEqual([
      ["tools-added", "audited", "U0ALICE"],
      ["tools-removed", "audited", "U0ALICE"],
    ]);
    expect((await stack.client.audit(roomOf(elsewhere))).entries).toEqual([]);
  });

  it("someone who may not change the run policy may not add, remove, or turn a server on or off: told who may, nothing changes", async () => {
    const channel = newChannel();
    const refusal = { text: ":no_entry: Only <@U0ALICE> may add, remove, or turn tool servers on or off here.", visibility: "ephemeral" };
    expect(await tools(channel, `add mallory ${mcp.url}/echo`, "U0MALLORY")).toEqual(refusal);
    expect(await serverNames()).not.toContain("mallory");
    await tools(channel, `add kept ${mcp.url}/echo`);
    expect(await tools(channel, "room on kept", "U0MALLORY")).toEqual(refusal);
    expect(await stack.client.roomTools(roomOf(channel))).toEqual({ workspace: workspace(), tools: [] });
    expect(await tools(channel, "remove kept", "U0MALLORY")).toEqual(refusal);
    expect(await serverNames()).toContain("kept");
    // Listing is anyone's.
    expect((await tools(channel, "", "U0MALLORY")).text).toContain("• `kept` `");
  });

  it("empty, oversized, malformed and hostile input each get one line for the asker that quotes none of it, and nothing is saved", async () => {
    const channel = newChannel();
    const before = await serverNames();
    const cases: [string, string][] = [
      ["add", "Give the server a name and its address"],
      ["remove", "Name one server to remove"],
      ["room on", "Say on or off and name one server"],
      ["drop everything", "Tools takes one of"],
      [`add ${"n".repeat(40)} ${mcp.url}/tracker`, "Server name must be 1-32 characters"],
      // Slack sends a mention as <@U0BOB>.
      [`add <@U0BOB> ${mcp.url}/tracker`, "Server name must be"],
      [`add <!channel> ${mcp.url}/tracker`, "Server name must be"],
      ["add t <file:///etc/passwd>", "URL must be an absolute http(s) address"],
      [`add t https://admin:${SECRET}@mcp.example.com/`, "URL must not carry credentials"],
      [`add t ${mcp.url}/tracker Authorization: Bearer ${SECRET}`, "Give each header as Name=value"],
      [`add t ${mcp.url}/tracker X-Key=${SECRET}\n@here`, "Give each header as Name=value"],
      [`add t ${mcp.url}/tracker Content-Type=${SECRET}`, "Duet sets content-type"],
      [`add t ${mcp.url}/tracker X-Key=${"v".repeat(4097)}`, "Header values must be one line of at most 4096 characters"],
    ];
    for (const [typed, rule] of cases) {
      const seen = await tools(channel, typed);
      expect([typed.slice(0, 40), seen.visibility]).toEqual([typed.slice(0, 40), "ephemeral"]);
      expect(seen.text).toMatch(/^:warning: [^\n]+$/);
      expect(seen.text.startsWith(`:warning: ${rule}`)).toBe(true);
      expect(seen.text).not.toMatch(/sk-live|<@U0BOB>|<!channel>|@here|passwd|nnnnnnnnnn|vvvvvvvvvv/);
    }
    expect(await serverNames()).toEqual(before);
  });
});

const actionsOf = (msg: SlackMessage) => (msg.blocks ?? []).filter((b) => b.type === "actions");
const runValue = (msg: SlackMessage) => actionsOf(msg)[0].elements.find((e: { action_id: string }) => e.action_id === "duet_approval_run").value as string;
const callsOf = (tool: string) => mcp.calls.filter((c) => c.path === "/tracker" && c.tool === tool && (c.args as { id: number }).id === 7).length;

describe("Slack: a tool call in an approve room", () => {
  it("runs a read-only tool at once, holds a destructive one for Run with the tool and its arguments, runs it once on an allowed click, and audits it", async () => {
    const channel = newChannel();
    await tools(channel, `add desk ${mcp.url}/tracker`);
    await tools(channel, "room on desk");
    const { fields } = await slash(slack, bot, channel, "policy approve");
    await slashResponse(slack, fields);

    // An answer made only of read-only calls waits for nobody.
    const looked = await mention(slack, bot, { channel, user: "U0BOB", text: 'SAY: Looking. <tool name="desk.lookup">{"id": 7}</tool>' });
    const [lookup] = await answerTo(slack, looked);
    expect(readable(lookup)).toContain("issue 7: login fails on Safari (open)");
    expect(actionsOf(lookup)).toHaveLength(0);
    expect(callsOf("lookup")).toBe(1);

    const m = await mention(slack, bot, { channel, user: "U0BOB", text: 'SAY: Closing. <tool name="desk.close_issue">{"id": 7}</tool>' });
    const [first] = await answerTo(slack, m);
    const proposal = structuredClone(first);
    // The answer is posted, so the turn is over: the close was not made.
    expect(callsOf("close_issue")).toBe(0);
    expect(actionsOf(proposal)).toHaveLength(1);
    expect(readable(proposal)).toContain('`tool: desk.close_issue {"id":7}`');

    const delivery = await click(slack, bot, { channel, messageTs: proposal.ts, actionId: "duet_approval_run", value: runValue(proposal), user: "U0CAROL" });
    expect(delivery.status).toBe(200);
    const output = await slack.waitFor(() => slack.ws.thread(channel, proposal.thread_ts!).find((x) => x.ts !== proposal.ts && readable(x).includes("closed issue 7")), "the tool's result in the thread");
    expect(readable(output)).toContain("closed issue 7");
    expect(readable(slack.ws.find(channel, proposal.ts)!)).toContain('<@U0CAROL> ran `tool: desk.close_issue {"id":7}`');
    expect(callsOf("close_issue")).toBe(1);

    const audit = await slash(slack, bot, channel, "audit", "U0BOB");
    expect(shown(await slashResponse(slack, audit.fields))).toMatch(/`tool: desk\.close_issue \{"id":7\}` run by <@U0CAROL>, proposed for <@U0BOB>/);
  });
});

describe("Slack: a tool server after a Worker restart", () => {
  it("is still on in the room, and the next call reaches it with its sealed header: the Worker keeps its servers and reconnects per call", async () => {
    const channel = newChannel();
    const key = `sk-live-restart-${Date.now()}`;
    await tools(channel, `add keyed <${mcp.url}/echo> X-Api-Key=${key}`);
    await tools(channel, "room on keyed");
    const seenKeys = () => mcp.calls.filter((c) => c.path === "/echo" && (c.args as { key?: string }).key === key).length;
    const [before] = await answerTo(slack, await mention(slack, bot, { channel, text: 'SAY: Before. <tool name="keyed.whoami">{}</tool>' }));
    expect(readable(before)).toContain("it was sent [redacted]");
    expect(seenKeys()).toBe(1);

    await stack.restartWorker();
    const [after] = await answerTo(slack, await mention(slack, bot, { channel, text: 'SAY: After. <tool name="keyed.whoami">{}</tool>' }));
    expect(readable(after)).toContain("After.");
    expect(readable(after)).toContain("it was sent [redacted]");
    expect(readable(after)).not.toContain(key);
    expect(seenKeys()).toBe(2);
  });
});
