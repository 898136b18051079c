import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { STREAM_EVENTS_HEADER } from "@duet/shared";
import { recentDays, utcDay } from "../src/usage/usage-entries.ts";
import { api, freshRoom, modelCallsWith, send } from "./helpers.ts";
import { release, stream, unique } from "./live-helpers.ts";

const testEnv = env as unknown as Record<string, string>;

interface ReportedCall {
  messages: { content: string }[];
  usage?: { prompt_tokens: number; completion_tokens: number };
}

/** What the fake model reported for the calls whose last message holds `marker`. */
async function reported(marker: string): Promise<ReportedCall[]> {
  const { calls } = (await (await fetch(`${testEnv.FAKE_MODEL_URL}/_calls`)).json()) as { calls: ReportedCall[] };
  return calls.filter((c) => c.messages[c.messages.length - 1]?.content.includes(marker));
}

async function usage(room: string, query = "") {
  const res = await api(`/api/rooms/${room}/usage${query}`);
  return { status: res.status, body: (await res.json()) as any };
}

const rows = async (room: string) => ((await (await api(`/api/rooms/${room}/stats`)).json()) as { rowsWrittenSinceStart: number }).rowsWrittenSinceStart;

describe("model usage", () => {
  it("adds up a streamed and a whole answer's tokens to what the model reported, per person and model", async () => {
    const room = freshRoom();
    const whole = `whole-${room}`;
    const streamed = `streamed-${room}`;
    expect((await send(room, `SAY: one ${whole}`, { userId: "U1", userName: "Ada" })).status).toBe(200);
    await (await stream(room, `SAY: two ${streamed}`, { userId: "U1", userName: "Ada" })).rest();
    const [a] = await reported(whole);
    const [b] = await reported(streamed);
    // Both ways the provider reported figures: a whole answer's `usage`, and a stream's last event.
    expect(a.usage).toBeDefined();
    expect(b.usage).toBeDefined();
    const { body } = await usage(room);
    expect(body.days).toHaveLength(7);
    expect(body.days[0].rows).toEqual([
      {
        userId: "U1",
        userName: "Ada",
        model: "fake-model",
        inputTokens: a.usage!.prompt_tokens + b.usage!.prompt_tokens,
        outputTokens: a.usage!.completion_tokens + b.usage!.completion_tokens,
        turns: 2,
        // fake-model has no price: its turns are counted in tokens only.
        unpriced: 2,
      },
    ]);
    expect(body.budgets).toEqual({ user: { limit: 1_000_000_000 }, userUsd: { limit: 1 } });
  });

  it("counts a provider that reports no usage as unknown, not as zero", async () => {
    const room = freshRoom();
    expect((await send(room, "NOUSAGE SAY: no figures", { userId: "U2" })).status).toBe(200);
    const { body } = await usage(room);
    expect(body.days[0].rows).toEqual([{ userId: "U2", model: "fake-model", inputTokens: null, outputTokens: null, turns: 1, unreported: 1 }]);
  });

  it("keeps usage in the turn's own row: a turn still writes two rows, and turns whose rows were reused still count", async () => {
    const room = freshRoom();
    await send(room, "SAY: warm up", { userId: "U3" });
    // Past the 25 turns the history shows, unkeyed turns' rows are reused: their usage goes into the rollup.
    for (let i = 0; i < 27; i++) expect((await send(room, `SAY: turn ${i}`, { userId: "U3" })).status).toBe(200);
    const before = await rows(room);
    expect((await send(room, "SAY: one more", { userId: "U3" })).status).toBe(200);
    expect((await rows(room)) - before).toBe(2);
    const { body } = await usage(room);
    expect(body.days[0].rows[0]).toMatchObject({ userId: "U3", turns: 29 });
  });

  it("counts a person's tokens across their workspace's rooms: one row in their own usage object per turn, the room's two rows unchanged", async () => {
    const team = freshRoom("T").replace(/-/g, "");
    const first = `first-${team}`;
    const second = `second-${team}`;
    const person = (env as unknown as { PERSON_USAGE: DurableObjectNamespace }).PERSON_USAGE.getByName(JSON.stringify([`slack-${team}`, "U9"])) as unknown as {
      stats(): Promise<{ rowsWrittenSinceStart: number }>;
    };
    const thread = `slack-${team}-C2-1700000000.000100`;
    expect((await send(`slack-${team}-C1`, `SAY: one ${first}`, { userId: "U9" })).status).toBe(200);
    expect((await send(thread, "SAY: warm up", { userId: "U8" })).status).toBe(200);
    const roomBefore = await rows(thread);
    const personBefore = (await person.stats()).rowsWrittenSinceStart;
    expect((await send(thread, `SAY: two ${second}`, { userId: "U9" })).status).toBe(200);
    expect((await person.stats()).rowsWrittenSinceStart - personBefore).toBe(1);
    expect((await rows(thread)) - roomBefore).toBe(2);
    const [a] = await reported(first);
    const [b] = await reported(second);
    const spent = a.usage!.prompt_tokens + a.usage!.completion_tokens + b.usage!.prompt_tokens + b.usage!.completion_tokens;
    // Another channel of the same workspace: its own rows hold none of U9's turns, the budget holds both.
    const { body } = await usage(`slack-${team}-C3`, "?userId=U9");
    expect(body.days[0].rows).toEqual([]);
    expect(body.budgets.user).toEqual({ limit: 1_000_000_000, used: spent, left: 1_000_000_000 - spent, where: "across this workspace's rooms" });
    // Another workspace's person of the same id is someone else.
    expect((await usage(`slack-${team}X-C1`, "?userId=U9")).body.budgets.user.used).toBe(0);
  });

  it("a turn that waited in the room's queue is checked against what was spent while it waited: refused, its model never asked", async () => {
    const team = freshRoom("T").replace(/-/g, "");
    const room = `slack-${team}-C1`;
    const person = (env as unknown as { PERSON_USAGE: DurableObjectNamespace }).PERSON_USAGE.getByName(JSON.stringify([`slack-${team}`, "U7"])) as unknown as {
      add(day: string, used: { tokens: number; costMicros: number }, oldest: string): Promise<unknown>;
    };
    const hold = unique("budget-ahead");
    const ahead = await stream(room, `HOLD:${hold} CHUNK:13 SAY: the turn ahead answers`, { userId: "U7" });
    await ahead.until("text");
    const waiting = await stream(room, `SAY: waited-${hold}`, { userId: "U7" }, { [STREAM_EVENTS_HEADER]: "queued" });
    expect(await waiting.until("queued")).toMatchObject({ data: { ahead: 1 } });
    // While it waits, the person spends their whole day's budget (as in another room of their workspace).
    const now = Date.now();
    await person.add(utcDay(now), { tokens: 1_000_000_000, costMicros: 0 }, recentDays(now).at(-1)!);
    await release(hold);
    expect((await ahead.rest()).at(-1)).toMatchObject({ event: "done" });
    const end = (await waiting.rest()).at(-1);
    expect(end).toMatchObject({ event: "error", data: { code: "over_budget" } });
    expect(JSON.stringify(end)).toContain("You have used your daily budget of 1000000000 model tokens across this workspace's rooms");
    expect(await modelCallsWith(`waited-${hold}`)).toEqual([]);
  });

  it("prices a turn on a priced model at its price, counts the cost toward the person's money budget across the workspace, and refuses past it with no model call", async () => {
    const team = freshRoom("T").replace(/-/g, "");
    const [one, two] = [`slack-${team}-C1`, `slack-${team}-C2`];
    for (const room of [one, two]) expect((await api(`/api/rooms/${room}/model`, { method: "PUT", json: { model: "priced", userId: "U1" } })).status).toBe(200);
    const paid = unique("paid");
    expect((await send(one, `SAY: fine ${paid}`, { userId: "U6" })).status).toBe(200);
    const [call] = await reported(paid);
    const costUsd = (call.usage!.prompt_tokens + call.usage!.completion_tokens) * 0.005;
    const { body } = await usage(one, "?userId=U6");
    expect(body.days[0].rows).toEqual([expect.objectContaining({ userId: "U6", model: "priced", turns: 1, costUsd: expect.closeTo(costUsd, 9) })]);
    expect(body.budgets.userUsd).toEqual({ limit: 1, used: expect.closeTo(costUsd, 9), left: 0, where: "across this workspace's rooms" });
    // Another channel of the same workspace: refused before the model is asked.
    const late = unique("late");
    const res = await send(two, `SAY: again ${late}`, { userId: "U6" });
    expect(res.status).toBe(429);
    expect(JSON.stringify(res.body)).toMatch(/You have spent your daily budget of \$1\.00 on models across this workspace's rooms \(DUET_USER_DAILY_USD: \$[\d.]+ today\)/);
    expect(await modelCallsWith(late)).toEqual([]);
    // Someone else in that channel is not held back by it (the unpriced models cost nothing either).
    expect((await send(two, "SAY: someone else", { userId: "U5" })).status).toBe(200);
  });

  it("adds a channel's thread rooms to the channel's usage", async () => {
    const channel = `slack-${freshRoom("T").replace(/-/g, "")}-C1`;
    const thread = `${channel}-1700000000.000100`;
    expect((await send(channel, "SAY: in the channel", { userId: "U4" })).status).toBe(200);
    expect((await send(thread, "SAY: in a thread", { userId: "U5", userName: "Bo" })).status).toBe(200);
    const { body } = await usage(channel);
    expect(body.days[0].rows.map((r: { userId: string; turns: number }) => [r.userId, r.turns]).sort()).toEqual([["U4", 1], ["U5", 1]]);
  });

  it("refuses a malformed userId with a 400", async () => {
    const res = await usage(freshRoom(), `?userId=${"x".repeat(200)}`);
    expect(res.status).toBe(400);
    expect(res.body.details.userId[0]).toMatch(/characters/);
  });
});
