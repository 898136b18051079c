import { describe, expect, it } from "vitest";
import { snowflake, user } from "../fakes/discord/index.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import type { Stack } from "../helpers/stack.ts";
import { interactionAnswer, type DiscordHarness, startDiscordSetup } from "./harness.ts";

/**
 * `/duet schedule|schedules|unschedule` end to end through the real discord.js
 * bot and a real Worker whose minimum interval is a second (set for tests), so
 * the room's own alarm runs them; the bot's delivery loop posts each run's
 * answer into the channel as a new message, which the fake Discord records.
 */

const VIEW_AND_SEND = String((1 << 10) | (1 << 11));
const RUNNERS = snowflake();

let stack: Stack;
let h: DiscordHarness;
const mallory = user(snowflake(), "mallory");

startedForTests(
  () => startDiscordSetup({ env: () => ({ DISCORD_ALLOW_RUN: `${RUNNERS}, manage-channels` }), stack: { vars: { DUET_SCHEDULE_MIN_INTERVAL_S: "1", DUET_SCHEDULES_PER_ROOM: "2" } } }),
  (s) => ({ stack, h } = s),
);

async function command(channel: string, subcommand: string, options: Record<string, string> = {}, from = h.fake.alice) {
  const rec = h.fake.interaction(channel, { subcommand, options }, from);
  const { text } = await interactionAnswer(h, rec);
  return { text, ephemeral: rec.ephemeral };
}

/** The bot's messages in the channel that a schedule's runs posted (not replies to anyone). */
function runsOf(channel: string, id: string) {
  return h.fake.messagesIn(channel).filter((m) => m.author.id === h.fake.botUser.id && m.content.includes(`Scheduled ask \`${id}\``));
}

describe("/duet schedule on Discord", () => {
  it("schedules, lists and unschedules; the bot posts each run's answer in the channel as a new message", async () => {
    const channel = h.fake.addChannel(h.guildId, "sched");
    const room = `discord-${h.guildId}-${channel}`;
    const made = await command(channel, "schedule", { when: "every 1s", prompt: "SAY: discord tick <run>echo d-sched</run>" });
    expect(made.ephemeral).toBe(false);
    const id = /Id `([a-z0-9]+)`/.exec(made.text)?.[1];
    expect(made.text).toContain(`<@${h.fake.alice.id}> scheduled \`SAY: discord tick <run>echo d-sched</run>\` (\`every 1s\`)`);

    // The room's own alarm runs it; the bot's delivery loop posts it, a message of its own, replying to no one.
    await expect.poll(() => runsOf(channel, id!).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
    const [run] = runsOf(channel, id!);
    expect(run.content).toContain(`⏰ Scheduled ask \`${id}\` by <@${h.fake.alice.id}>: \`SAY: discord tick <run>echo d-sched</run>\``);
    expect(run.content).toContain("```\n$ echo d-sched\nd-sched\n```");
    expect(run.message_reference ?? null).toBeNull();

    const listed = await command(channel, "schedules", {}, mallory);
    expect(listed.ephemeral).toBe(true);
    expect(listed.text).toContain(`\`${id}\` · \`every 1s\` · next `);

    const removed = await command(channel, "unschedule", { id: id! });
    expect(removed.text).toContain(`removed schedule \`${id}\``);
    expect((await stack.client.schedules(room)).schedules).toEqual([]);
  });

  it("a run that could not run (the model down) is said in the channel, once per run", async () => {
    const channel = h.fake.addChannel(h.guildId, "sched-fail");
    const room = `discord-${h.guildId}-${channel}`;
    const scheduled = async (prompt: string) => /Id `([a-z0-9]+)`/.exec((await command(channel, "schedule", { when: "every 1s", prompt })).text)![1];
    const id = await scheduled("FAIL:503 the model is down");
    await expect.poll(() => runsOf(channel, id).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
    expect(runsOf(channel, id)[0].content).toMatch(new RegExp(`^⏰ Scheduled ask \`${id}\`.*\n⚠️ The scheduled ask \`${id}\` could not run: .*HTTP 503`));
    await command(channel, "unschedule", { id });
    // The barrier: a later schedule's first run, asked after every run of the first. Then one message per run asked, each with its own nonce.
    const barrier = await scheduled("SAY: barrier run");
    await expect.poll(() => runsOf(channel, barrier).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
    await command(channel, "unschedule", { id: barrier });
    const asked = (await stack.client.audit(room)).entries.filter((e) => e.kind === "scheduled-run" && e.scheduleId === id);
    expect(asked.length).toBeGreaterThanOrEqual(1);
    await expect.poll(() => runsOf(channel, id).length, { timeout: 30_000 }).toBe(asked.length);
    expect(new Set(runsOf(channel, id).map((m) => m.nonce)).size).toBe(asked.length);
  });

  it("refuses bad input and people who may not run commands, telling only them", async () => {
    const channel = h.fake.addChannel(h.guildId, "sched-bad");
    h.fake.setMember(mallory, { roles: [], permissions: VIEW_AND_SEND });
    const refused = async (sub: string, options: Record<string, string>, from = h.fake.alice) => {
      const r = await command(channel, sub, options, from);
      expect(r.ephemeral, r.text).toBe(true);
      return r.text;
    };
    expect(await refused("schedule", { when: "every 1h", prompt: "check" }, mallory)).toMatch(/Only .* may run commands/);
    expect(await refused("schedule", { when: "0 9 * * * Mars/Olympus", prompt: "check" })).toContain("Unknown time zone `Mars/Olympus`");
    expect(await refused("schedule", { when: "0 0 9 * * 1-5", prompt: "check" })).toMatch(/A cron line has 5 fields .* this one has 6/);
    expect(await refused("unschedule", { id: "no such" })).toContain("is not a schedule id");
    // An unknown id is the Worker's to tell, after Discord fixed the reply's visibility: in its own words, where the answer would have been.
    expect((await command(channel, "unschedule", { id: "abc123" })).text).toBe("⚠️ This room has no schedule `abc123`; the room's list of schedules shows their ids.");
    await command(channel, "schedule", { when: "every 1h", prompt: "one" });
    await command(channel, "schedule", { when: "every 2h", prompt: "two" });
    // The room's limit is the Worker's to tell, after Discord fixed the reply's visibility: it shows where the confirmation would have.
    expect((await command(channel, "schedule", { when: "every 3h", prompt: "three" })).text).toContain("already has 2 schedules");
    expect((await stack.client.schedules(`discord-${h.guildId}-${channel}`)).schedules.map((s) => s.ask)).toEqual(["one", "two"]);
  });
});
