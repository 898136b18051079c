import { expect } from "vitest";
import type { DiscordHarness } from "../discord/harness.ts";
import type { InteractionRecord } from "../fakes/discord/index.ts";
import type { FakeSlack, SlackMessage } from "../fakes/slack/index.ts";
import { answerTo, botReplies, readable } from "../slack/harness.ts";
import type { TurnTally } from "./tally.ts";

/**
 * What a thread is told when the Worker went away after the room took a turn:
 * that the answer is coming (the room finishes the turn and its outbox posts
 * it), never to try again. Both bots, answering live or whole.
 */

export const COMING = /still coming/;
export const TRY_AGAIN = /try again/i;

/**
 * The Worker's delivery grace in these tests: an answer whose bot gave up is
 * offered to the bots this long after the room finished it. Longer than the
 * bot's longest wait between two tries (RETRY_MAX_MS, 4 s), so a bot still
 * trying gets its retry in before the outbox offers the answer; short of the
 * production 15 s, which the outage tests would otherwise sit through.
 */
export const DELIVERY_GRACE_MS = "5000";

/** Once the bot's tries ran out while the Worker was down: its word in the thread on the lost answer, which says it is coming. */
export async function slackComingNote(slack: FakeSlack, channel: string, threadTs: string): Promise<SlackMessage> {
  // A live answer's word is where its stream ended.
  const said = await slack.waitFor(() => botReplies(slack, channel, threadTs).find((r) => !r.stream?.open && (COMING.test(readable(r)) || TRY_AGAIN.test(readable(r)))), "the thread's word on the lost answer", 60_000);
  expect(readable(said)).toMatch(COMING);
  return said;
}

/** The thread once the answer's ✅ is on the question: the room resumed the turn when the Worker was back, and its outbox delivered it. */
export async function slackDeliveredAfterOutage(slack: FakeSlack, m: { channel: string; ts: string; threadTs: string }): Promise<SlackMessage[]> {
  await slack.waitFor(() => slack.ws.reactionsOn(m.channel, m.ts).includes("white_check_mark"), "the answer's ✅", 90_000);
  return answerTo(slack, m);
}

/** What the bot wrote into an interaction's deferred reply, edit by edit. */
export const replyEdits = (discord: DiscordHarness, rec: InteractionRecord): string[] =>
  discord.fake.calls.filter((c) => c.path.includes(rec.token) && c.method === "PATCH").map((c) => String(c.body?.content ?? ""));

/** Once the bot's tries ran out while the Worker was down: the deferred reply says the answer is coming. */
export async function discordComingNote(discord: DiscordHarness, rec: InteractionRecord): Promise<void> {
  const said = () => replyEdits(discord, rec).find((e) => COMING.test(e) || TRY_AGAIN.test(e));
  await expect.poll(said, { timeout: 60_000, interval: 50 }).toBeDefined();
  expect(said()).toMatch(COMING);
}

/**
 * The room's delivery edited the deferred reply into the answer holding
 * `text` (counted for `t`): no other message in `channel`, and never "try again".
 */
export async function discordDeliveredInReply(discord: DiscordHarness, rec: InteractionRecord, channel: string, text: string, t: TurnTally): Promise<void> {
  await expect.poll(() => rec.original?.content ?? "", { timeout: 90_000, interval: 100 }).toContain(text);
  t.answered([rec.original]);
  expect(rec.followups).toEqual([]);
  expect(rec.original?.content).not.toMatch(COMING);
  expect(replyEdits(discord, rec).filter((e) => TRY_AGAIN.test(e))).toEqual([]);
  expect(discord.fake.calls.filter((c) => c.method === "POST" && c.path.startsWith(`/channels/${channel}/messages`))).toEqual([]);
}
