import { describe, expect, it } from "vitest";
import { envelope, type FakeSlack } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { answerTo, type BotHandle, newChannel, readable } from "./harness.ts";
import { deliver, install, mentionIn, startOAuthSetup, stored, tokensIn } from "./oauth-harness.ts";

/**
 * Two bot replicas under OAuth distribution share the Worker's installation
 * store: a rotating token is refreshed once however many events need it at
 * once, and removing Duet from a workspace removes its installation and its
 * rooms, and the replica that had it cached stops answering there.
 */

let stack: Stack;
let slack: FakeSlack;
let bots: BotHandle[];

startedForTests(() => startOAuthSetup(2), (s) => ({ stack, slack, bots } = s));

let seq = 0;
const freshTeam = () => `T${Date.now().toString(36).toUpperCase()}R${(seq++).toString(36).toUpperCase()}`;

describe("token rotation and uninstall across replicas", () => {
  it("ten events needing a refresh at once on two replicas: Slack sees one refresh and the store holds one new token", async () => {
    const team = freshTeam();
    // Tokens that expire within the refresh window: the first lookup must rotate.
    slack.oauth.app = { ...slack.oauth.app!, expiresIn: 3_600 };
    expect((await install(slack, bots[0], { teamId: team })).status).toBe(200);
    slack.oauth.app = { ...slack.oauth.app!, expiresIn: undefined };
    const grant = slack.oauth.grantFor(team)!;
    const before = { token: grant.token, refreshes: slack.oauth.refreshes.length };

    const held = slack.hold("oauth.v2.access");
    const channels = Array.from({ length: 10 }, () => newChannel());
    const mentions = channels.map((channel, i) => mentionIn(slack, bots[i % 2], grant, { channel, text: `SAY: rotated ${i}` }));
    // The winner's refresh is at Slack while all ten events wait on the installation.
    await held.arrived;
    held.release();
    const sent = await Promise.all(mentions);

    for (const [i, m] of sent.entries()) {
      const replies = await answerTo(slack, m);
      expect(replies.map(readable).join("\n")).toContain(`rotated ${i}`);
    }
    expect(slack.oauth.refreshes.slice(before.refreshes)).toEqual([{ refreshToken: expect.any(String), ok: true }]);
    const fresh = grant.token;
    expect(fresh).not.toBe(before.token);
    for (const channel of channels) expect(tokensIn(slack, channel)).toEqual(new Set([fresh]));
    const record = await stored(stack, team);
    expect(record).toMatchObject({ version: 2, installation: { bot: { token: fresh, refreshToken: grant.refreshToken } } });
    expect(record!.installation.bot.expiresAt * 1000 - Date.now()).toBeGreaterThan(3 * 60 * 60 * 1000);
  });

  it("app_uninstalled removes the workspace's installation and rooms, and no replica answers there after, nor draws its Home tab", async () => {
    const [gone, stays] = [freshTeam(), freshTeam()];
    for (const team of [gone, stays]) expect((await install(slack, bots[0], { teamId: team })).status).toBe(200);
    const [goneGrant, staysGrant] = [slack.oauth.grantFor(gone)!, slack.oauth.grantFor(stays)!];
    const channel = newChannel();
    // Both replicas answer in the workspace first, so both have its installation cached.
    for (const bot of bots) await answerTo(slack, await mentionIn(slack, bot, goneGrant, { channel, text: "SAY: before uninstall" }));
    const room = `slack-${gone}-${channel}`;
    expect((await stack.client.history(room)).messages.length).toBeGreaterThan(0);

    const uninstalled = slack.oauth.deliveredTo(envelope(slack, { type: "app_uninstalled" }), goneGrant);
    expect((await deliver(bots[0], uninstalled)).status).toBe(200);
    for (let i = 0; (await stored(stack, gone)) !== null || (await stack.client.history(room)).messages.length > 0; i++) {
      if (i > 200) throw new Error("the installation or the room outlived app_uninstalled");
      await new Promise((r) => setTimeout(r, 50));
    }

    const callsBefore = slack.calls.length;
    const ignored = await mentionIn(slack, bots[0], goneGrant, { channel: newChannel(), text: "SAY: after uninstall" });
    expect(ignored.delivery.status).toBe(200);
    // Someone there opening Duet's Home tab is answered 200 and shown nothing: Duet has no token there to draw it with.
    const home = slack.oauth.deliveredTo(envelope(slack, { type: "app_home_opened", user: "U0GONE", channel: "D0HOME", tab: "home" }), goneGrant);
    expect((await deliver(bots[0], home)).status).toBe(200);
    // Barrier: a later Home opening and a later mention in a workspace that kept Duet are answered by the same replica.
    const publishes = slack.ws.publishes.length;
    const stayedHome = slack.oauth.deliveredTo(envelope(slack, { type: "app_home_opened", user: "U0STAYS", channel: "D0HOME", tab: "home" }), staysGrant);
    expect((await deliver(bots[0], stayedHome)).status).toBe(200);
    await slack.waitFor(() => slack.ws.publishes.slice(publishes).find((p) => p.user === "U0STAYS"), "the Home view where Duet stayed");
    const later = await mentionIn(slack, bots[0], staysGrant, { channel: newChannel(), text: "SAY: still here" });
    expect((await answerTo(slack, later)).map(readable).join("\n")).toContain("still here");
    expect(slack.ws.publishes.filter((p) => p.user === "U0GONE")).toEqual([]);
    expect(slack.calls.slice(callsBefore).filter((c) => c.token === goneGrant.token)).toEqual([]);
    expect(slack.ws.thread(ignored.channel, ignored.ts).filter((m) => m.via !== "user")).toEqual([]);
  });

  it("an org-wide app_uninstalled naming one workspace cleans the rooms of every workspace of the org, whichever replica answered there", async () => {
    const org = `E${freshTeam().slice(1)}`;
    expect((await install(slack, bots[0], { enterpriseId: org, orgWide: true })).status).toBe(200);
    const grant = slack.oauth.grantFor(org)!;
    const [named, other] = [freshTeam(), freshTeam()];
    const rooms: string[] = [];
    // Each workspace is answered by a different replica: neither replica saw both.
    for (const [i, team] of [named, other].entries()) {
      const channel = newChannel();
      await answerTo(slack, await mentionIn(slack, bots[i], grant, { channel, text: `SAY: org room in ${team}` }, team));
      rooms.push(`slack-${team}-${channel}`);
    }
    for (const room of rooms) expect((await stack.client.history(room)).messages.length).toBeGreaterThan(0);
    // A workspace outside the org keeps its room.
    const outside = freshTeam();
    expect((await install(slack, bots[0], { teamId: outside })).status).toBe(200);
    const outsideChannel = newChannel();
    await answerTo(slack, await mentionIn(slack, bots[1], slack.oauth.grantFor(outside)!, { channel: outsideChannel, text: "SAY: outside the org" }));

    const uninstalled = slack.oauth.deliveredTo(envelope(slack, { type: "app_uninstalled" }), grant, named);
    expect((await deliver(bots[0], uninstalled)).status).toBe(200);
    await expect
      .poll(async () => [await stored(stack, org), ...(await Promise.all(rooms.map(async (r) => (await stack.client.history(r)).messages.length)))], { timeout: 20_000, interval: 100 })
      .toEqual([null, 0, 0]);
    expect((await stack.client.history(`slack-${outside}-${outsideChannel}`)).messages.length).toBeGreaterThan(0);
  });
});
