import { describe, expect, it } from "vitest";
import { blockTexts, type FakeSlack } from "../fakes/slack/index.ts";
import { startFakeMcpOAuth, type FakeMcpOAuth } from "../fakes/mcp-oauth.ts";
import { startedBeside, startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, mention, newChannel, readable, slash, slashResponse, startSlackSetup } from "./harness.ts";

/**
 * A tool server behind OAuth, end to end: the real bolt app against the fake
 * Slack, the real Worker, and the fake MCP server with its authorization
 * server. The link goes to the person who added the server, ephemerally, and
 * to nobody else; once their browser has been through it, the room's turn
 * calls the gated tool.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;
let oauth: FakeMcpOAuth;

startedForTests(
  () => startedBeside(startFakeMcpOAuth, () => startSlackSetup([{ SLACK_ALLOW_POLICY: "U0ALICE" }], { vars: { DUET_TOOLS_ALLOW_PRIVATE: "1", DUET_STORE_KEY: "s".repeat(40) } })),
  (s) => ({ stack, slack, bots: [bot], fake: oauth } = s),
);

const shown = (body: Record<string, unknown>) => ((body.blocks ?? []) as Parameters<typeof blockTexts>[0][]).flatMap(blockTexts).join("\n");

describe("Slack: a tool server that asks for OAuth", () => {
  it("sends the link to the person who added it alone; after their browser went through it, the room answers with the gated tool's result", async () => {
    const channel = newChannel();
    const add = await slash(slack, bot, channel, `tools add gated <${oauth.gatedUrl}>`, "U0ALICE");
    const news = await slashResponse(slack, add.fields, 1);
    expect(news.response_type).toBe("in_channel");
    expect(shown(news)).toContain("It asks for OAuth: <@U0ALICE> was sent the link that authorizes Duet there, which only they see.");
    expect(shown(news)).not.toContain("/authorize");
    const secret = await slashResponse(slack, add.fields, 2);
    expect(secret.response_type).toBe("ephemeral");
    const link = /(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)/.exec(shown(secret).replace(/&amp;/g, "&"))?.[1];
    expect(shown(secret)).toContain("`gated` asks you to authorize Duet there before its tools can be used. Only you see this link");
    expect(link).toBeDefined();

    // Someone else listing the servers is told it waits for authorization, without the link.
    const bob = await slash(slack, bot, channel, "tools", "U0BOB");
    const bobSees = shown(await slashResponse(slack, bob.fields));
    expect(bobSees).toContain("• `gated`");
    expect(bobSees).toContain("it needs to be authorized; the person who added it gets the link with `/duet tools`");
    expect(bobSees).not.toContain("/authorize");

    // Alice's browser: the authorization server consents and sends it back to the Worker's callback.
    const consent = await fetch(link!, { redirect: "manual" });
    expect(consent.status).toBe(302);
    const back = await fetch(consent.headers.get("location")!);
    expect(back.status).toBe(200);
    expect(await back.text()).toContain("Duet can now use the tool server gated.");

    await slashResponse(slack, (await slash(slack, bot, channel, "tools room on gated", "U0ALICE")).fields);
    const m = await mention(slack, bot, { channel, user: "U0BOB", text: 'SAY: Counting. <tool name="gated.count">{}</tool>' });
    const answer = (await answerTo(slack, m)).map(readable).join("\n");
    expect(answer).toContain("there are 42 open issues");

    // Nothing anyone in the channel reads holds the link or a token.
    const { tokens } = (await (await fetch(`${oauth.url}/_log`)).json()) as { tokens: string[] };
    const everyone = [...slack.ws.channel(channel).map(readable), shown(news), bobSees, JSON.stringify(await stack.client.toolServers(`slack-${slack.id.teamId}`))].join("\n");
    expect(everyone).not.toContain("/authorize");
    expect(tokens.length).toBeGreaterThan(0);
    for (const token of tokens) expect(everyone).not.toContain(token);

    // The person revokes Duet at the server: the next call's line says so in the thread, and Alice's own listing has a new link.
    await fetch(`${oauth.url}/_revoke`, { method: "POST" });
    const again = await mention(slack, bot, { channel, user: "U0BOB", text: 'SAY: Counting again. <tool name="gated.count">{}</tool>' });
    const line = (await answerTo(slack, again)).map(readable).join("\n");
    expect(line).toContain("tool server gated: it needs to be authorized again, so the call was not made; the person who added it gets a new link with `/duet tools`");
    const mine = await slash(slack, bot, channel, "tools", "U0ALICE");
    const aliceSees = await slashResponse(slack, mine.fields);
    expect(aliceSees.response_type).toBe("ephemeral");
    expect(shown(aliceSees).replace(/&amp;/g, "&")).toMatch(/you added it, so only you see the link that authorizes Duet there: http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
    expect(shown(aliceSees)).not.toContain(link!.split("state=")[1].split("&")[0]);
  });
});
