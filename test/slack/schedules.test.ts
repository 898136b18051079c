import { describe, expect, it } from "vitest";
import { startedForTests } from "../helpers/lifecycle.ts";
import { type FakeSlack, type SlackMessage } from "../fakes/slack/index.ts";
import type { Stack } from "../helpers/stack.ts";
import { type BotHandle, bodyText, newChannel, readable, slash, slashResponse, startSlackSetup } from "./harness.ts";

/**
 * `/duet schedule` end to end: the real bolt bot, the real Worker under wrangler
 * (a one-second minimum interval, set for tests, so the room's own alarm fires
 * without a test hook), the outbox and the fake Slack. A scheduled run's answer
 * is a new top-level message in the channel, posted by the bot's delivery loop.
 */

let stack: Stack;
let slack: FakeSlack;
let bot: BotHandle;
let limited: BotHandle;

startedForTests(
  () => startSlackSetup([{}, { SLACK_ALLOW_RUN: "U0ALICE" }], { vars: { DUET_SCHEDULE_MIN_INTERVAL_S: "1", DUET_SCHEDULES_PER_ROOM: "3" } }),
  (s) => ({ stack, slack, bots: [bot, limited] } = s),
);


/** Top-level bot messages in the channel that a schedule's run posted. */
function runsOf(channel: string, id: string): SlackMessage[] {
  return slack.ws.channel(channel).filter((m) => m.bot_id === slack.id.botId && !m.thread_ts && readable(m).includes(`Scheduled ask \`${id}\``));
}

async function scheduleIn(channel: string, text: string, user = "U0ALICE"): Promise<{ id: string; body: Record<string, unknown> }> {
  const { fields } = await slash(slack, bot, channel, `schedule ${text}`, user);
  const body = await slashResponse(slack, fields);
  const id = /Id `([a-z0-9]+)`/.exec(bodyText(body))?.[1];
  if (!id) throw new Error(`no schedule id in: ${bodyText(body)}`);
  return { id, body };
}

describe("/duet schedule, /duet schedules, /duet unschedule", () => {
  it("posts each run's answer as a new message in the channel, lists it, and posts none after unschedule", async () => {
    const channel = newChannel();
    const room = `slack-${slack.id.teamId}-${channel}`;
    const { id, body } = await scheduleIn(channel, "every 1s SAY: nightly report <run>echo sched-tick</run>");
    // Everyone in the channel sees that it was scheduled, by whom, and when it first runs.
    expect(body.response_type).toBe("in_channel");
    expect(bodyText(body)).toMatch(/<@U0ALICE> scheduled `SAY: nightly report &lt;run&gt;echo sched-tick&lt;\/run&gt;` \(`every 1s`\); first run .* UTC/);

    // Two runs, each its own top-level message (a thread of its own), with the command's output.
    const two = await slack.waitFor(() => (runsOf(channel, id).length >= 2 ? runsOf(channel, id) : undefined), "two scheduled runs in the channel");
    for (const m of two) {
      expect(m.thread_ts).toBeUndefined();
      expect(readable(m)).toContain(`Scheduled ask \`${id}\` by <@U0ALICE>`);
      expect(readable(m)).toMatch(/```\nsched-tick\n```/);
    }

    const listed = await slashResponse(slack, (await slash(slack, bot, channel, "schedules", "U0CAROL")).fields);
    expect(listed.response_type).toBe("ephemeral");
    expect(bodyText(listed)).toMatch(new RegExp(`\`${id}\` · \`every 1s\` · next .* UTC · set by <@U0ALICE>`));

    const removed = await slashResponse(slack, (await slash(slack, bot, channel, `unschedule ${id}`, "U0BOB")).fields);
    expect(bodyText(removed)).toContain(`<@U0BOB> removed schedule \`${id}\``);
    // The barrier: a second schedule's first run. Runs of the first that were asked before it are posted before it; none after.
    const barrier = await scheduleIn(channel, "every 1s SAY: barrier run");
    await slack.waitFor(() => runsOf(channel, barrier.id).length >= 1 || undefined, "the barrier schedule's first run");
    const audit = (await stack.client.audit(room)).entries;
    const asked = audit.filter((e) => e.kind === "scheduled-run" && e.scheduleId === id);
    const unscheduledAt = audit.findIndex((e) => e.kind === "unscheduled" && e.scheduleId === id);
    expect(audit.findLastIndex((e) => e.kind === "scheduled-run" && e.scheduleId === id)).toBeLessThan(unscheduledAt);
    expect(runsOf(channel, id)).toHaveLength(asked.length);
    await slash(slack, bot, channel, `unschedule ${barrier.id}`);
    await slack.waitFor(async () => (await stack.client.schedules(room)).schedules.length === 0 || undefined, "the barrier schedule removed");
  });

  it("tells the person what is wrong with a bad schedule, only them, and schedules nothing", async () => {
    const channel = newChannel();
    const room = `slack-${slack.id.teamId}-${channel}`;
    const refused = async (text: string, user = "U0ALICE", via = bot) => {
      const body = await slashResponse(slack, (await slash(slack, via, channel, text, user)).fields);
      expect(body.response_type).toBe("ephemeral");
      return bodyText(body);
    };
    expect(await refused("schedule every day 09:00 Mars/Olympus check")).toContain("Unknown time zone `Mars/Olympus`");
    expect(await refused("schedule 0 0 9 * * 1-5 check")).toMatch(/A cron line has 5 fields .* this one has 6/);
    expect(await refused("schedule every 30m")).toContain("What should Duet ask every 30m?");
    expect(await refused("schedule")).toContain("needs when and what to ask");
    expect(await refused("unschedule")).toContain("needs the schedule's id");
    expect(await refused("unschedule abc123")).toContain("no schedule `abc123`");
    // Who may schedule is who may run commands.
    expect(await refused("schedule every 1h check", "U0MALLORY", limited)).toMatch(/:no_entry: Only <@U0ALICE> may run commands/);
    for (const n of [1, 2, 3]) await scheduleIn(channel, `every ${n}h SAY: hourly ${n}`);
    expect(await refused("schedule every 4h SAY: one too many")).toContain("already has 3 schedules, the most it may have");
    expect((await stack.client.schedules(room)).schedules.map((s) => s.ask)).toEqual(["SAY: hourly 1", "SAY: hourly 2", "SAY: hourly 3"]);
  });
});
