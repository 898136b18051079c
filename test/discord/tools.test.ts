import { describe, expect, it } from "vitest";
import { shownText, snowflake, user, type FakeMessage } from "../fakes/discord/index.ts";
import { startFakeMcp, type FakeMcp } from "../fakes/mcp.ts";
import { startedBeside, startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { interactionAnswer, mentionAnswer, type DiscordHarness, startDiscordSetup } from "./harness.ts";
import { withRole } from "./roles.ts";

/**
 * `/duet tools` end to end through the real discord.js bot, the fake Discord,
 * the real Worker (which may call local addresses and seals headers) and a
 * fake MCP server built with the official SDK. Manage Channels may change the
 * run policy, so only it may add, remove, or turn a server on or off: alice
 * has it, mallory may only view and send.
 */

let stack: Stack;
let h: DiscordHarness;
let mcp: FakeMcp;
const mallory = user(snowflake(), "mallory");
/** A role nobody here needs: giving it out makes mallory a member who may only view and send. */
const NO_ROLE = snowflake();
const SECRET = "sk-live-discord-0123456789";

startedForTests(
  () =>
    startedBeside(startFakeMcp, () =>
      startDiscordSetup({ env: () => ({ DISCORD_ALLOW_POLICY: "manage-channels" }), stack: { vars: { DUET_TOOLS_ALLOW_PRIVATE: "1", DUET_STORE_KEY: "d".repeat(40) } } }),
    ),
  (s) => ({ stack, h, fake: mcp } = s),
);

const room = (channel: string) => `discord-${h.guildId}-${channel}`;
const workspace = () => `discord-${h.guildId}`;

/** `/duet tools` with `what` (none: left out), answered: what the person sees and whether only they see it. */
async function tools(channel: string, what?: string, from = h.fake.alice) {
  await withRole(h, NO_ROLE, [], [mallory]);
  const rec = h.fake.interaction(channel, { subcommand: "tools", options: what === undefined ? {} : { what } }, from);
  const { text } = await interactionAnswer(h, rec);
  return { text, ephemeral: rec.ephemeral };
}

describe("Discord: /duet tools", () => {
  it("adds a server for the channel to see with its header's value hidden, lists it privately, and turns it on here", async () => {
    const ch = h.fake.addChannel(h.guildId, "tools-add");
    const url = `${mcp.url}/tracker`;
    const added = await tools(ch, `add tracker ${url} Authorization="Bearer ${SECRET}"`);
    expect(added).toEqual({
      text: `🧰 <@${h.fake.alice.id}> added the tool server \`tracker\` (\`${url}\`; headers Authorization (value hidden)) in this workspace; \`/duet tools what:room on tracker\` turns it on in a room.`,
      ephemeral: false,
    });
    const listed = await tools(ch, undefined, mallory);
    expect(listed.ephemeral).toBe(true);
    expect(listed.text).toContain(`• \`tracker\` \`${url}\`; headers Authorization (value hidden): off here; tools \`lookup\` (read-only), \`close_issue\``);
    for (const seen of [added, listed]) expect(seen.text).not.toContain(SECRET);

    expect(await tools(ch, "room on tracker")).toEqual({ text: `🧰 <@${h.fake.alice.id}> turned the tool server \`tracker\` on in this room: Duet may call its tools here.`, ephemeral: false });
    expect(await stack.client.roomTools(room(ch))).toEqual({ workspace: workspace(), tools: ["tracker"] });
  });

  it("a member who may not change the run policy may not add, remove, or turn a server on: told privately who may, nothing changes", async () => {
    const ch = h.fake.addChannel(h.guildId, "tools-refused");
    const refused = { text: "⛔ Only members with the Manage Channels permission may add, remove, or turn tool servers on or off here.", ephemeral: true };
    expect(await tools(ch, `add sneaky ${mcp.url}/echo`, mallory)).toEqual(refused);
    await tools(ch, `add held ${mcp.url}/echo`);
    expect(await tools(ch, "room on held", mallory)).toEqual(refused);
    expect(await tools(ch, "remove held", mallory)).toEqual(refused);
    const names = (await stack.client.toolServers(workspace())).servers.map((s) => s.name);
    expect(names).toContain("held");
    expect(names).not.toContain("sneaky");
    expect(await stack.client.roomTools(room(ch))).toEqual({ workspace: workspace(), tools: [] });
  });

  it("malformed and hostile words each get one private line that quotes none of them, and nothing is saved", async () => {
    const ch = h.fake.addChannel(h.guildId, "tools-bad");
    const before = (await stack.client.toolServers(workspace())).servers.map((s) => s.name);
    const cases: [string, string][] = [
      ["add", "Give the server a name and its address"],
      ["\u200b", "Tools takes one of"],
      [`add <@${h.fake.alice.id}> ${mcp.url}/tracker`, "Server name must be"],
      ["add @everyone https://mcp.example.com", "Server name must be"],
      [`add t ${mcp.url}/tracker Authorization: Bearer ${SECRET}`, "Give each header as Name=value"],
      [`add t https://admin:${SECRET}@mcp.example.com/`, "URL must not carry credentials"],
      ["room on ```x```", "Server name must be"],
    ];
    for (const [typed, rule] of cases) {
      const seen = await tools(ch, typed);
      expect([typed.slice(0, 40), seen.ephemeral]).toEqual([typed.slice(0, 40), true]);
      expect(seen.text).toMatch(/^⚠️ [^\n]+$/);
      expect(seen.text.startsWith(`⚠️ ${rule}`)).toBe(true);
      expect(seen.text).not.toMatch(/sk-live|<@\d|@everyone|```/);
    }
    expect((await stack.client.toolServers(workspace())).servers.map((s) => s.name)).toEqual(before);
  });
});

const buttons = (m: FakeMessage) => ((m.components ?? []) as { components: { custom_id: string; label: string }[] }[]).flatMap((r) => r.components);
const callsOf = (tool: string, id: number) => mcp.calls.filter((c) => c.tool === tool && (c.args as { id?: number }).id === id).length;

describe("Discord: a tool call in an approve room", () => {
  it("runs a read-only tool at once, holds a destructive one for Run with the tool and its arguments, runs it once on an allowed click, and audits it; a channel without the server neither sees nor reaches it", async () => {
    const ch = h.fake.addChannel(h.guildId, `tools-approve-${snowflake()}`);
    const other = h.fake.addChannel(h.guildId, `tools-other-${snowflake()}`);
    const id = Number(snowflake().slice(-6));
    await tools(ch, `add desk${id} ${mcp.url}/tracker`);
    await tools(ch, `room on desk${id}`);
    await interactionAnswer(h, h.fake.interaction(ch, { subcommand: "policy", options: { mode: "approve" } }));

    // An answer made only of read-only calls waits for nobody.
    const [lookup] = await mentionAnswer(h, h.fake.message(ch, `SAY: Looking. <tool name="desk${id}.lookup">{"id": ${id}}</tool>`, { mention: true, from: mallory }));
    expect(shownText(lookup)).toContain(`issue ${id}: login fails on Safari (open)`);
    expect(buttons(lookup)).toEqual([]);
    expect(callsOf("lookup", id)).toBe(1);

    const replies = await mentionAnswer(h, h.fake.message(ch, `SAY: Closing. <tool name="desk${id}.close_issue">{"id": ${id}}</tool>`, { mention: true, from: mallory }));
    const proposal = replies.find((m) => buttons(m).length > 0)!;
    // The answer is posted, so the turn is over: the close was not made.
    expect(callsOf("close_issue", id)).toBe(0);
    expect(shownText(proposal)).toContain(`tool: desk${id}.close_issue {"id":${id}}`);
    const run = buttons(proposal).find((b) => b.label.startsWith("Run"))!;
    const click = h.fake.click(proposal, run.custom_id, h.fake.alice);
    await h.waitForLog(`click ${click.id} `);
    await expect.poll(() => h.fake.messagesIn(ch).some((m) => shownText(m).includes(`closed issue ${id}`)), { timeout: 20_000, interval: 20 }).toBe(true);
    expect(shownText(h.fake.world.messages.get(proposal.id)!)).toContain(`<@${h.fake.alice.id}> ran \`tool: desk${id}.close_issue {"id":${id}}\``);
    expect(callsOf("close_issue", id)).toBe(1);
    const audit = await interactionAnswer(h, h.fake.interaction(ch, { subcommand: "audit", options: {} }));
    expect(audit.text).toMatch(new RegExp(`\`tool: desk${id}\\.close_issue \\{"id":${id}\\}\` run by <@${h.fake.alice.id}>, proposed for <@${mallory.id}>`));

    // Another channel of the same server has not turned it on: its prompt does not name it, and its call is refused.
    const [refused] = await mentionAnswer(h, h.fake.message(other, `SAY: <tool name="desk${id}.lookup">{"id": ${id + 1}}</tool>`, { mention: true }));
    expect(shownText(refused)).toContain(`desk${id} is not a tool server enabled in this room, so the call was not made`);
    expect(callsOf("lookup", id + 1)).toBe(0);
  });
});

describe("Discord: a tool server after a Worker restart", () => {
  it("is still on in the channel, and the next call reaches it with its sealed header", async () => {
    const ch = h.fake.addChannel(h.guildId, `tools-restart-${snowflake()}`);
    const key = `sk-live-restart-${snowflake()}`;
    await tools(ch, `add keyed ${mcp.url}/echo X-Api-Key=${key}`);
    await tools(ch, "room on keyed");
    const seenKeys = () => mcp.calls.filter((c) => c.path === "/echo" && (c.args as { key?: string }).key === key).length;
    const [before] = await mentionAnswer(h, h.fake.message(ch, 'SAY: Before. <tool name="keyed.whoami">{}</tool>', { mention: true }));
    expect(shownText(before)).toContain("it was sent [redacted]");

    await stack.restartWorker();
    const [after] = await mentionAnswer(h, h.fake.message(ch, 'SAY: After. <tool name="keyed.whoami">{}</tool>', { mention: true }));
    expect(shownText(after)).toContain("After.");
    expect(shownText(after)).toContain("it was sent [redacted]");
    expect(shownText(after)).not.toContain(key);
    expect(seenKeys()).toBe(2);
  });
});
