import { describe, expect, it } from "vitest";
import type { FakeSlack } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, newChannel, readable } from "./harness.ts";
import { install, mentionIn, startOAuthSetup, stored, tokensIn } from "./oauth-harness.ts";

/**
 * Slack OAuth distribution end to end: workspaces install Duet through
 * /slack/install and Slack's authorize page (the fake's), the installation
 * lands in the Worker's store, and each workspace is answered with its own
 * bot token. A state that was forged, belongs to another browser or was
 * already used installs nothing.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;

startedForTests(() => startOAuthSetup(1), (s) => ({ stack, slack, bots: [bot] } = s));

let seq = 0;
const freshId = (prefix: "T" | "E") => `${prefix}${Date.now().toString(36).toUpperCase()}${(seq++).toString(36).toUpperCase()}`;

describe("Slack OAuth installs", () => {
  it("installs two workspaces and answers a mention in each with that workspace's own token", async () => {
    const [a, b] = [freshId("T"), freshId("T")];
    for (const team of [a, b]) {
      const run = await install(slack, bot, { teamId: team });
      expect(run.status).toBe(200);
      expect(run.text).toContain("Duet is installed");
      expect((await stored(stack, team))?.installation.team.id).toBe(team);
    }
    const grants = [slack.oauth.grantFor(a)!, slack.oauth.grantFor(b)!];
    expect(grants[0].token).not.toBe(grants[1].token);
    const channels = [newChannel(), newChannel()];
    const mentions = await Promise.all(grants.map((g, i) => mentionIn(slack, bot, g, { channel: channels[i], text: `SAY: hello from workspace ${i}` })));
    for (const [i, m] of mentions.entries()) {
      expect(m.delivery.status).toBe(200);
      const replies = await answerTo(slack, m);
      expect(replies.map(readable).join("\n")).toContain(`hello from workspace ${i}`);
      expect(tokensIn(slack, channels[i])).toEqual(new Set([grants[i].token]));
    }
  });

  it("answers in two workspaces of a Grid org that installed Duet org-wide, under the org's one installation", async () => {
    const org = freshId("E");
    const run = await install(slack, bot, { enterpriseId: org, orgWide: true });
    expect(run.status).toBe(200);
    const record = await stored(stack, org);
    expect(record?.installation).toMatchObject({ isEnterpriseInstall: true, enterprise: { id: org } });
    const grant = slack.oauth.grantFor(org)!;
    const teams = [freshId("T"), freshId("T")];
    for (const team of teams) {
      expect(await stored(stack, team)).toBeNull();
      const channel = newChannel();
      const m = await mentionIn(slack, bot, grant, { channel, text: `SAY: org answer in ${team}` }, team);
      const replies = await answerTo(slack, m);
      expect(replies.map(readable).join("\n")).toContain(`org answer in ${team}`);
      expect(tokensIn(slack, channel)).toEqual(new Set([grant.token]));
    }
  });

  it("refuses a forged state, a state from another browser and a used one, and installs nothing", async () => {
    const accessCalls = () => slack.callsOf("oauth.v2.access").length;
    const forgedTeam = freshId("T");
    // A state the attacker made up, with a cookie to match: not signed with SLACK_STATE_SECRET.
    const forged = await install(slack, bot, { teamId: forgedTeam }, (back) => {
      const fake = "eyJhbGciOiJIUzI1NiJ9.eyJpbnN0YWxsT3B0aW9ucyI6e30sIm5vdyI6MH0.forged";
      back.searchParams.set("state", fake);
      return `slack-app-oauth-state=${fake}`;
    });
    const otherBrowserTeam = freshId("T");
    // A real state, opened in a browser that never started the install (no cookie, or someone else's).
    const noCookie = await install(slack, bot, { teamId: otherBrowserTeam }, () => "");
    const before = accessCalls();
    for (const run of [forged, noCookie]) {
      expect(run.status).toBe(400);
      expect(run.text).toContain("Duet was not installed");
    }
    expect(before).toBe(accessCalls());
    expect(await stored(stack, forgedTeam)).toBeNull();
    expect(await stored(stack, otherBrowserTeam)).toBeNull();

    // A completed install's redirect, replayed as the browser would after it (its state cookie was cleared).
    const team = freshId("T");
    const done = await install(slack, bot, { teamId: team });
    expect(done.status).toBe(200);
    const version = (await stored(stack, team))?.version;
    const replay = await fetch(done.back, { redirect: "manual" });
    expect(replay.status).toBe(400);
    // ... and with the old cookie kept: the code it carries was used, so Slack refuses the exchange.
    const stolen = await fetch(done.back, { headers: { cookie: done.cookie }, redirect: "manual" });
    expect(stolen.status).toBe(400);
    expect((await stored(stack, team))?.version).toBe(version);
    expect(slack.callsOf("oauth.v2.access").at(-1)).toMatchObject({ error: "invalid_code" });
  });
});

