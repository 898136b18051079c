import { describe, expect, it } from "vitest";
import { runDuet } from "../helpers/cli-run.ts";
import { startFakeMcpOAuth, type FakeMcpOAuth } from "../fakes/mcp-oauth.ts";
import { startedBeside, startedForTests } from "../helpers/lifecycle.ts";
import { startStack, type Stack } from "../helpers/stack.ts";

/** `duet tools … add` of a server behind OAuth: the terminal is the adder's own, so it prints the link. */

let stack: Stack;
let oauth: FakeMcpOAuth;

startedForTests(
  () => startedBeside(startFakeMcpOAuth, () => startStack({ vars: { DUET_TOOLS_ALLOW_PRIVATE: "1", DUET_STORE_KEY: "k".repeat(40) } })),
  (s) => {
    stack = s;
    oauth = s.fake;
  },
);

describe("duet tools add, for a server that asks for OAuth", () => {
  it("prints the link after the news; once a browser went through it, the server's tools are listed", async () => {
    const room = "cli-oauth";
    const added = await runDuet(stack, "tools", room, "add", "gated", oauth.gatedUrl);
    expect(added.code).toBe(0);
    const [news, secret] = added.out.split("\n");
    expect(news).toMatch(/^cli:\S+ added the tool server `gated` .* It asks for OAuth: cli:\S+ was sent the link that authorizes Duet there, which only they see\.$/);
    expect(secret).toMatch(/^`gated` asks you to authorize Duet there before its tools can be used\. Only you see this link; it works once, within 10 minutes: http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
    const link = secret.slice(secret.indexOf("http://"));
    const consent = await fetch(link, { redirect: "manual" });
    const back = await fetch(consent.headers.get("location")!);
    expect(back.status).toBe(200);
    expect((await runDuet(stack, "tools", room)).out).toContain(`• \`gated\` \`${oauth.gatedUrl}\`: off here; tools \`count\` (read-only)`);
  });
});
