import { describe, expect, it } from "vitest";
import { type FakeSlack, mentionEvent } from "../fakes/slack/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { type BotHandle, botReplies, newChannel, readable } from "./harness.ts";
import { install, startOAuthSetup, tokensIn } from "./oauth-harness.ts";

/**
 * The outbox under OAuth distribution: answers left in the rooms of two
 * installed workspaces (as by a bot that died) are delivered, each with the
 * token of its own workspace's installation.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;

// Answers unconfirmed for 300 ms are offered in the feed (15 s in production).
startedForTests(() => startOAuthSetup(1, { DUET_DELIVERY_GRACE_MS: "300" }), (s) => ({ stack, slack, bots: [bot] } = s));

let seq = 0;
const freshTeam = () => `T${Date.now().toString(36).toUpperCase()}${(seq++).toString(36).toUpperCase()}`;

describe("the outbox under Slack OAuth", () => {
  it("delivers waiting answers in two workspaces, each with its own workspace's token", async () => {
    const teams = [freshTeam(), freshTeam()];
    for (const team of teams) expect((await install(slack, bot, { teamId: team })).status).toBe(200);
    const waiting = teams.map((team, i) => {
      const channel = newChannel("COAUTH");
      // The person's message the answer belongs to (never sent to a bot: its bot died before it could answer).
      const threadTs = String(mentionEvent(slack, { channel, text: "SAY: something" }).event.ts);
      return { team, channel, threadTs, marker: `oauth-delivery-${i}-${Date.now()}` };
    });
    // The first names its workspace in the target, as the bot records it; the second is found by its room id alone.
    for (const [i, { team, channel, threadTs, marker }] of waiting.entries()) {
      const place = { channel, threadTs, ...(i === 0 ? { team } : {}) };
      await stack.client.message(`slack-${team}-${channel}`, { text: `SAY: ${marker}`, idempotencyKey: `Ev-${marker}`, deliver: { platform: "slack", place } });
    }
    for (const { team, channel, threadTs, marker } of waiting) {
      await slack.waitFor(() => botReplies(slack, channel, threadTs).length > 0, `the answer in ${channel}`);
      expect(readable(botReplies(slack, channel, threadTs)[0])).toContain(marker);
      expect(tokensIn(slack, channel)).toEqual(new Set([slack.oauth.grantFor(team)!.token]));
    }
  });
});
