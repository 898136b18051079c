import { describe, expect, it } from "vitest";
import { snowflake, user } from "../fakes/discord/index.ts";
import { startFakeMcp, type FakeMcp } from "../fakes/mcp.ts";
import { startedBeside, startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { interactionAnswer, type DiscordHarness, startDiscordSetup } from "./harness.ts";
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
