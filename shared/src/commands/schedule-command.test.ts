import { describe, expect, it } from "vitest";
import { parseDuetCommand } from "./commands.ts";
import { channelTargetOf } from "../wire/room-id.ts";

describe("/duet schedule <when> <ask>: where the when ends", () => {
  it("splits each form of when from the ask, keeping the ask's own line breaks", () => {
    expect(parseDuetCommand("schedule every 30m check disk space")).toEqual({ kind: "schedule", when: "every 30m", ask: "check disk space" });
    expect(parseDuetCommand("schedule every 2 hours check disk")).toEqual({ kind: "schedule", when: "every 2 hours", ask: "check disk" });
    expect(parseDuetCommand("schedule every weekday 09:00 Europe/Berlin summarise CI")).toEqual({ kind: "schedule", when: "every weekday 09:00 Europe/Berlin", ask: "summarise CI" });
    expect(parseDuetCommand("schedule every monday 08:30 standup notes")).toEqual({ kind: "schedule", when: "every monday 08:30", ask: "standup notes" });
    expect(parseDuetCommand("schedule 0 9 * * 1-5 America/New_York open PRs")).toEqual({ kind: "schedule", when: "0 9 * * 1-5 America/New_York", ask: "open PRs" });
    expect(parseDuetCommand("schedule 0 9 * * MON-FRI open PRs")).toEqual({ kind: "schedule", when: "0 9 * * MON-FRI", ask: "open PRs" });
    expect(parseDuetCommand('schedule "every day 07:00 UTC" line one\nline two')).toEqual({ kind: "schedule", when: "every day 07:00 UTC", ask: "line one\nline two" });
  });

  it("keeps a sixth cron field with the line, and says a cron line has five", () => {
    expect(parseDuetCommand("schedule 0 0 9 * * 1-5 report")).toMatchObject({ kind: "help", problem: expect.stringMatching(/A cron line has 5 fields .* this one has 6/) });
  });

  it("reads the when before anything reaches the Worker: an unknown zone or unreadable line is help", () => {
    expect(parseDuetCommand("schedule every day 09:00 Mars/Olympus report")).toMatchObject({ kind: "help", problem: expect.stringMatching(/Unknown time zone `Mars\/Olympus`/) });
    expect(parseDuetCommand("schedule every 5 fortnights report")).toMatchObject({ kind: "help", problem: expect.stringMatching(/Unknown unit/) });
  });

  it("answers bad input with help that says what is missing", () => {
    expect(parseDuetCommand("schedule")).toMatchObject({ kind: "help", problem: expect.stringMatching(/needs when and what to ask/) });
    expect(parseDuetCommand("schedule every 30m")).toMatchObject({ kind: "help", problem: expect.stringMatching(/What should Duet ask every 30m\?/) });
    expect(parseDuetCommand("schedule tomorrow please")).toMatchObject({ kind: "help", problem: expect.stringMatching(/Start with when it should run/) });
    expect(parseDuetCommand(`schedule every 1h ${"x".repeat(9000)}`)).toMatchObject({ kind: "help", problem: expect.stringMatching(/ask is 9,000 characters/) });
  });
});

describe("/duet schedules and /duet unschedule <id>", () => {
  it("lists, and removes by an id as listed (any case)", () => {
    expect(parseDuetCommand("schedules")).toEqual({ kind: "schedules" });
    expect(parseDuetCommand("unschedule 3F9A1C2B")).toEqual({ kind: "unschedule", id: "3f9a1c2b" });
  });

  it("refuses a missing or malformed id before it reaches the Worker", () => {
    expect(parseDuetCommand("unschedule")).toMatchObject({ kind: "help", problem: expect.stringMatching(/needs the schedule's id/) });
    expect(parseDuetCommand("unschedule ../etc")).toMatchObject({ kind: "help", problem: expect.stringMatching(/is not a schedule id/) });
  });
});

describe("channelTargetOf", () => {
  it("names the channel of a Slack or Discord channel room, and nothing for other rooms", () => {
    expect(channelTargetOf("slack-T1-C2")).toEqual({ platform: "slack", place: { channel: "C2" } });
    expect(channelTargetOf("discord-G1-123")).toEqual({ platform: "discord", place: { channel: "123" } });
    expect(channelTargetOf("slack-T1-C2-1700.1")).toBeNull();
    expect(channelTargetOf("demo")).toBeNull();
  });
});
