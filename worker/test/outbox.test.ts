import { describe, expect, it } from "vitest";
import { api, freshRoom, modelCallsWith, send } from "./helpers.ts";
import { feedUntilItems as feedOf, readFeed as read } from "./feed-helpers.ts";
import { release, stream, unique } from "./live-helpers.ts";

/** Rows the room has written since it woke (its stats). */
async function rowsWritten(room: string): Promise<number> {
  return ((await (await api(`/api/rooms/${room}/stats`)).json()) as { rowsWrittenSinceStart: number }).rowsWrittenSinceStart;
}

const slackThread = (channel: string) => ({ platform: "slack", place: { channel, threadTs: "1700000000.000100" } });

type Item = { roomId: string; key: string; messageId: string | null; answer: { reply: string }; question: string };

const readFeed = (platform: string, room: string, waitMs = 0) => read<Item>(platform, room, waitMs);
const feedUntilItems = (platform: string, room: string) => feedOf<Item>(platform, room);

function confirm(room: string, key: string, messageId: string, final = true) {
  return api(`/api/rooms/${room}/deliveries`, { method: "POST", json: { key, messageId, final } });
}

function hold(room: string, key: string) {
  return api(`/api/rooms/${room}/deliveries/hold`, { method: "POST", json: { key } });
}

describe("the outbox: answers kept until a bot confirms them", () => {
  it("a turn delivered live writes 3 rows: accepted, answered, confirmed", async () => {
    const room = freshRoom("cli-outbox");
    await send(room, "SAY: warm up", { idempotencyKey: unique("warm") });
    const before = await rowsWritten(room);
    const key = unique("turn");
    const { status } = await send(room, "SAY: hello there", { idempotencyKey: key, deliver: slackThread("C1") });
    expect(status).toBe(200);
    expect(await (await confirm(room, key, "1700000000.000200")).json()).toEqual({ confirmed: true, first: true });
    expect((await rowsWritten(room)) - before).toBe(3);
    // A repeated confirm (a retry, a second bot) is still confirmed, but not the first: it proposes nothing more.
    expect(await (await confirm(room, key, "1700000000.000200")).json()).toEqual({ confirmed: true });
  });

  it("an answer nobody confirmed is offered once in its platform's feed, and gone once confirmed", async () => {
    const room = freshRoom("cli-outbox");
    const key = unique("lost");
    await send(room, "SAY: the lost answer <run>echo out-1</run>", { idempotencyKey: key, deliver: slackThread("C2") });
    const items = await feedUntilItems("slack", room);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ key, messageId: null, question: "SAY: the lost answer <run>echo out-1</run>" });
    expect(items[0].answer.reply).toContain("Output (echo out-1):\nout-1");
    // Leased to the first reader: a second read gets nothing of it.
    expect((await readFeed("slack", room)).items).toEqual([]);
    expect(await (await confirm(room, key, "1700000000.000300")).json()).toEqual({ confirmed: true, first: true });
    // A confirmed answer is never offered again, and the room has left the feed.
    expect((await readFeed("slack", room)).items).toEqual([]);
    expect((await readFeed("discord", room)).items).toEqual([]);
  });

  it("two bots reading the feed at once get each answer once", async () => {
    const room = freshRoom("cli-outbox");
    const keys = [unique("a"), unique("b"), unique("c")];
    for (const key of keys) await send(room, `SAY: answer ${key}`, { idempotencyKey: key, deliver: slackThread("C3") });
    // Barrier: a later answer for the other platform is offered, so the Slack ones are past the grace too and the room is listed in Slack's feed.
    const barrier = unique("barrier");
    await send(room, `SAY: answer ${barrier}`, { idempotencyKey: barrier, deliver: { platform: "discord", place: { channel: "D3" } } });
    expect((await feedUntilItems("discord", room)).map((i) => i.key)).toEqual([barrier]);
    // Both reads find the room listed and claim from it while all three answers are claimable: only the lease keeps the second from taking them again.
    let seen: string[] = [];
    // (Read again only if neither read found the room yet: the alarm may list it in Discord's feed a moment before Slack's.)
    for (let i = 0; i < 50 && !seen.length; i++) {
      const [first, second] = await Promise.all([readFeed("slack", room), readFeed("slack", room)]);
      seen = [...first.items, ...second.items].map((x) => x.key);
    }
    expect(seen.sort()).toEqual([...keys].sort());
    // Delivered: the room leaves the feed, so later reads wait for their own rooms again.
    for (const key of [...keys, barrier]) expect(await (await confirm(room, key, "1700000000.000400")).json()).toEqual({ confirmed: true, first: true });
  });

  it("a message posted while the turn ran is handed back, to be edited instead of posted again", async () => {
    const room = freshRoom("cli-outbox");
    const key = unique("early");
    const hold = unique("hold");
    const live = stream(room, `HOLD:${hold} CHUNK:10 SAY: the early answer, written in several pieces`, { idempotencyKey: key, deliver: { platform: "discord", place: { channel: "D1" } } });
    const s = await live;
    await s.until("text");
    // The bot's live message exists before the answer does; then the bot dies (it hangs up).
    expect(await (await confirm(room, key, "900000000000000001", false)).json()).toEqual({ confirmed: false });
    await s.hangUp();
    await release(hold);
    const items = await feedUntilItems("discord", room);
    expect(items).toMatchObject([{ key, messageId: "900000000000000001" }]);
    expect(await modelCallsWith("the early answer")).toHaveLength(1);
    expect(await (await confirm(room, key, "900000000000000001")).json()).toEqual({ confirmed: true, first: true });
  });

  it("an answer claimed by a bot that died before confirming is offered again once the lease ends, to one reader", async () => {
    const room = freshRoom("cli-outbox");
    const key = unique("leased");
    await send(room, "SAY: the leased answer", { idempotencyKey: key, deliver: slackThread("C5") });
    // The claiming bot dies here: it never posts nor confirms.
    const [claimed] = await feedUntilItems("slack", room);
    expect(claimed.key).toBe(key);
    expect((await readFeed("slack", room)).items).toEqual([]);
    // Reads come back empty while the lease holds (the room stays listed, so they answer at once); once it ends the answer is offered again.
    let again: Item[] = [];
    for (let i = 0; i < 100 && !again.length; i++) {
      again = (await readFeed("slack", room)).items;
      if (!again.length) await new Promise((r) => setTimeout(r, 500));
    }
    expect(again.map((i) => i.key)).toEqual([key]);
    // Leased anew to that reader: one reader only.
    expect((await readFeed("slack", room)).items).toEqual([]);
    expect(await (await confirm(room, key, "1700000000.000500")).json()).toEqual({ confirmed: true, first: true });
  }, 60_000);

  it("an answer its bot still holds is not handed to another bot, while one beside it past the grace is", async () => {
    const room = freshRoom("cli-outbox");
    const [held, free] = [unique("held"), unique("free")];
    await send(room, "SAY: the held answer", { idempotencyKey: held, deliver: slackThread("C6") });
    // Its bot is still posting it (waiting its channel's turn): the bot holds it before the grace ends, for the lease
    // the Worker names (DUET_DELIVERY_LEASE_MS in vitest.config.ts), and asks again within it.
    expect(await (await hold(room, held)).json()).toEqual({ held: true, leaseMs: 3_000 });
    await send(room, "SAY: the free answer", { idempotencyKey: free, deliver: slackThread("C6") });
    // Barrier: the later answer is past the grace and handed out, so the earlier one is too, unless held.
    const items = await feedUntilItems("slack", room);
    expect(items.map((i) => i.key)).toEqual([free]);
    expect(await (await confirm(room, free, "1700000000.000600")).json()).toEqual({ confirmed: true, first: true });
    expect(await (await confirm(room, held, "1700000000.000700")).json()).toEqual({ confirmed: true, first: true });
    // Delivered: nothing left to hold.
    expect(await (await hold(room, held)).json()).toEqual({ held: false, leaseMs: 3_000 });
    expect(await (await hold(room, "no-such-key")).json()).toEqual({ held: false, leaseMs: 3_000 });
  });

  it("refuses a hold without a key, or with a body that is not a JSON object, with 400", async () => {
    const room = freshRoom("cli-outbox");
    const empty = await hold(room, "");
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({ details: { key: ["Key cannot be empty"] } });
    const long = await hold(room, "k".repeat(5_000));
    expect(long.status).toBe(400);
    const malformed = await api(`/api/rooms/${room}/deliveries/hold`, { method: "POST", body: "{key:", headers: { "content-type": "application/json" } });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ details: { body: ["Body must be valid JSON (UTF-8)"] } });
    expect((await api(`/api/rooms/${room}/deliveries/hold`)).status).toBe(405);
  });

  it("refuses bad input with a clear message", async () => {
    const room = freshRoom("cli-outbox");
    const unknown = await confirm(room, "no-such-key", "1.2");
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: "No answer in this room waits for delivery under that key." });
    const platform = await api(`/api/deliveries/irc`);
    expect(platform.status).toBe(400);
    expect(await platform.json()).toMatchObject({ details: { platform: ["Platform must be slack or discord"] } });
    const wait = await api(`/api/deliveries/slack?waitMs=99999999`);
    expect(wait.status).toBe(400);
    const target = await send(room, "hi", { idempotencyKey: unique("t"), deliver: { platform: "irc", place: {} } });
    expect(target.status).toBe(400);
    expect(JSON.stringify(target.body.details)).toContain("Platform must be slack or discord");
  });
});
