import { describe, expect, it } from "vitest";
import { snowflake, user } from "../fakes/discord/index.ts";
import { startFakeMcpOAuth, type FakeMcpOAuth } from "../fakes/mcp-oauth.ts";
import { startedBeside, startedForTests } from "../helpers/lifecycle.ts";
import { interactionAnswer, mentionAnswer, type DiscordHarness, startDiscordSetup } from "./harness.ts";
import { withRole } from "./roles.ts";

/**
 * A tool server behind OAuth through the real discord.js bot: the server's
 * news is the channel's, its link an ephemeral follow-up for the member who
 * added it; through that link the room's answer gets the gated tool's result.
 */

let h: DiscordHarness;
let oauth: FakeMcpOAuth;
const bob = user(snowflake(), "bob");
const NO_ROLE = snowflake();
const EPHEMERAL = 1 << 6;

startedForTests(
  () =>
    startedBeside(startFakeMcpOAuth, () =>
      startDiscordSetup({ env: () => ({ DISCORD_ALLOW_POLICY: "manage-channels" }), stack: { vars: { DUET_TOOLS_ALLOW_PRIVATE: "1", DUET_STORE_KEY: "d".repeat(40) } } }),
    ),
  (s) => ({ h, fake: oauth } = s),
);

async function until<T>(find: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("Discord: a tool server that asks for OAuth", () => {
  it("tells the channel it was added, gives the link in an ephemeral follow-up to the adder alone, and answers with the gated tool once authorized", async () => {
    const ch = h.fake.addChannel(h.guildId, "tools-oauth");
    await withRole(h, NO_ROLE, [], [bob]);
    const rec = h.fake.interaction(ch, { subcommand: "tools", options: { what: `add gated ${oauth.gatedUrl}` } }, h.fake.alice);
    const { text } = await interactionAnswer(h, rec);
    expect(rec.ephemeral).toBe(false);
    expect(text).toContain(`It asks for OAuth: <@${h.fake.alice.id}> was sent the link that authorizes Duet there, which only they see.`);
    const secret = await until(() => rec.followups.find((m) => m.content.includes("/authorize?")), "the link's follow-up");
    expect(Number(secret.flags) & EPHEMERAL).toBe(EPHEMERAL);
    const link = /(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)/.exec(secret.content)![1];

    const listed = h.fake.interaction(ch, { subcommand: "tools", options: {} }, bob);
    const bobSees = (await interactionAnswer(h, listed)).text;
    expect(bobSees).toContain("it needs to be authorized");
    expect(bobSees).not.toContain("/authorize");

    const consent = await fetch(link, { redirect: "manual" });
    const back = await fetch(consent.headers.get("location")!);
    expect(await back.text()).toContain("Duet can now use the tool server gated.");
    await interactionAnswer(h, h.fake.interaction(ch, { subcommand: "tools", options: { what: "room on gated" } }, h.fake.alice));
    const [answer] = await mentionAnswer(h, h.fake.message(ch, 'SAY: Counting. <tool name="gated.count">{}</tool>', { mention: true }));
    expect(answer.content).toContain("there are 42 open issues");
    // The one message that held the link is the ephemeral one: nothing the channel reads did.
    expect(h.fake.messagesIn(ch).filter((m) => m.content.includes("/authorize")).map((m) => Number(m.flags) & EPHEMERAL)).toEqual([EPHEMERAL]);
  });
});
