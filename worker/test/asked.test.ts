import { describe, expect, it } from "vitest";
import { ASKED_PER_ROOM, TEXT_MAX_CHARS } from "@duet/shared";
import { inRoom } from "./control-helpers.ts";
import { api, freshRoom, roomStub } from "./helpers.ts";

/**
 * The messages "Ask Duet" forms are open on, kept in their room until the
 * form is submitted: `PUT /asked/:key` keeps one, `POST /asked/:key/take`
 * gives it back once. What a bot restarted meanwhile reads, and what bad
 * input gets.
 */

const keep = async (room: string, key: string, body: unknown) => {
  const res = await api(`/api/rooms/${room}/asked/${key}`, { method: "PUT", json: body });
  return { status: res.status, body: (await res.json()) as any };
};
const take = async (room: string, key: string) => {
  const res = await api(`/api/rooms/${room}/asked/${key}/take`, { method: "POST" });
  return { status: res.status, body: (await res.json()) as any };
};
/** The room's kept rows as SQLite holds them. */
const rows = async (room: string) =>
  (await inRoom(roomStub(room), (agent) =>
    agent.ctx.storage.sql.exec(`SELECT name FROM sqlite_master WHERE name = 'duet_asked'`).toArray().length ? agent.ctx.storage.sql.exec("SELECT * FROM duet_asked").toArray() : [],
  )) as Record<string, unknown>[];

const MSG = { author: "Mallory", text: "TypeError: x is undefined", files: ["trace.log"] };

describe("a message an Ask Duet form is open on", () => {
  it("is kept under its key and given back once, cleaned as chat text is; another key or room has none", async () => {
    const room = freshRoom("discord-asked");
    const before = Date.now();
    const kept = await keep(room, "111-222", { author: " Mal\u200blory\n ", text: "\u200b  line one\r\nline two\u0007  ", files: ["a b.txt"] });
    expect(kept.status).toBe(200);
    expect(kept.body.kept).toBe(true);
    expect(kept.body.expiresAt).toBeGreaterThanOrEqual(before + 15 * 60_000);
    expect(await take(room, "111-333")).toEqual({ status: 200, body: { message: null } });
    expect(await take(freshRoom("discord-asked"), "111-222")).toEqual({ status: 200, body: { message: null } });
    expect(await take(room, "111-222")).toEqual({ status: 200, body: { message: { author: "Mallory", text: "line one\nline two", files: ["a b.txt"] } } });
    // Where each file is fetched from, when the bot kept that too, comes back with it.
    const attachments = [{ name: "trace.log", size: 12, url: "https://cdn.discordapp.com/attachments/1/2/trace.log?ex=1&hm=ab" }];
    await keep(room, "111-444", { ...MSG, attachments });
    expect((await take(room, "111-444")).body.message).toEqual({ ...MSG, attachments });
    // Taken: a second submission (or a replay) finds nothing, and the row is gone.
    expect(await take(room, "111-222")).toEqual({ status: 200, body: { message: null } });
    expect(await rows(room)).toEqual([]);
  });

  it("a second keep under the same key replaces the first", async () => {
    const room = freshRoom("discord-asked");
    await keep(room, "k1", { author: "A", text: "first" });
    await keep(room, "k1", { author: "B", text: "second" });
    expect((await take(room, "k1")).body.message).toEqual({ author: "B", text: "second" });
  });

  it("is kept redacted, as the history is: a secret in it never reaches the room's storage", async () => {
    const room = freshRoom("discord-asked");
    expect((await keep(room, "k-secret", { ...MSG, text: "my key is sk-test-openai-key-0123456789, why does it fail?" })).status).toBe(200);
    expect(JSON.stringify(await rows(room))).not.toContain("sk-test-openai-key-0123456789");
    const { message } = (await take(room, "k-secret")).body;
    expect(message.text).toContain("[redacted]");
    expect(message.text).not.toContain("sk-test-openai-key-0123456789");
  });

  it("is not given back once older than an interaction lives (15 minutes), and old rows go with the next keep", async () => {
    const room = freshRoom("discord-asked");
    await keep(room, "old-1", MSG);
    await keep(room, "old-2", MSG);
    await inRoom(roomStub(room), (agent) => agent.ctx.storage.sql.exec("UPDATE duet_asked SET at = at - ?", 15 * 60_000));
    expect((await take(room, "old-1")).body.message).toBeNull();
    await keep(room, "new", MSG);
    expect((await rows(room)).map((r) => r.key)).toEqual(["new"]);
  });

  it(`keeps at most ${ASKED_PER_ROOM} in a room: the oldest goes first`, async () => {
    const room = freshRoom("discord-asked");
    for (let n = 0; n <= ASKED_PER_ROOM; n++) expect((await keep(room, `k${n}`, { author: "A", text: `message ${n}` })).status).toBe(200);
    expect(await rows(room)).toHaveLength(ASKED_PER_ROOM);
    expect((await take(room, "k0")).body.message).toBeNull();
    expect((await take(room, "k1")).body.message).toEqual({ author: "A", text: "message 1" });
    expect((await take(room, `k${ASKED_PER_ROOM}`)).body.message).toEqual({ author: "A", text: `message ${ASKED_PER_ROOM}` });
  });

  it("goes with the room's reset", async () => {
    const room = freshRoom("discord-asked");
    await keep(room, "k-reset", MSG);
    expect((await api(`/api/rooms/${room}?userId=U1`, { method: "DELETE" })).status).toBe(200);
    expect((await take(room, "k-reset")).body.message).toBeNull();
  });

  it("refuses an empty, oversized, malformed or hostile body with a 400 naming the field, and keeps nothing", async () => {
    const room = freshRoom("discord-asked");
    const cases: [unknown, string, RegExp][] = [
      [{ text: "t" }, "author", /Author must be a string/],
      [{ author: "A" }, "text", /Text must be a string/],
      [{ author: "A", text: "" }, "text", /Text cannot be empty/],
      [{ author: "A", text: " \u200b\u0007\n " }, "text", /Text cannot be empty/],
      [{ author: "A", text: "x".repeat(TEXT_MAX_CHARS + 1) }, "text", /Text must be at most 8000 characters/],
      [{ author: "A", text: 42 }, "text", /Text must be a string/],
      [{ author: "", text: "t" }, "author", /Author cannot be empty/],
      [{ author: "\u202e\u200b", text: "t" }, "author", /Author cannot be empty/],
      [{ author: "A".repeat(81), text: "t" }, "author", /Author must be at most 80 characters/],
      [{ author: { name: "A" }, text: "t" }, "author", /Author must be a string/],
      [{ author: "A", text: "t", files: "trace.log" }, "files", /Files must be a list of file names/],
      [{ author: "A", text: "t", files: Array.from({ length: 11 }, (_, i) => `f${i}`) }, "files", /Files must name at most 10 files/],
      [{ author: "A", text: "t", files: ["x".repeat(256)] }, "files", /Each file name must be at most 255 characters/],
      [{ author: "A", text: "t", files: [""] }, "files", /A file name cannot be empty/],
      [{ author: "A", text: "t", files: [7] }, "files", /Each file name must be a string/],
      [{ author: "A", text: "t", attachments: Array.from({ length: 11 }, (_, i) => ({ name: `f${i}`, size: 1, url: `https://cdn.discordapp.com/f${i}` })) }, "attachments", /Attachments must hold at most 10 files/],
      [{ author: "A", text: "t", attachments: [{ name: "a", size: 1, url: "https://user:pw@cdn.discordapp.com/a" }] }, "attachments", /Each file's URL must be an http\(s\) URL without credentials/],
      [{ author: "A", text: "t", attachments: [{ name: "a", size: 1, url: "file:///etc/passwd" }] }, "attachments", /Each file's URL must be an http\(s\) URL without credentials/],
      [{ author: "A", text: "t", attachments: [{ name: "a", size: 1, url: `https://cdn.discordapp.com/${"a".repeat(2100)}` }] }, "attachments", /Each file's URL must be at most 2048 characters/],
      [{ author: "A", text: "t", attachments: [{ name: "a", size: -1, url: "https://cdn.discordapp.com/a" }] }, "attachments", /Each file.s size cannot be negative/],
      [{ author: "A", text: "t", attachments: ["https://cdn.discordapp.com/a"] }, "attachments", /Each file must be an object with name, size and url/],
    ];
    for (const [body, field, rule] of cases) {
      const res = await keep(room, "k-bad", body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(res.body.code).toBe("invalid_request");
      expect(Object.keys(res.body.details), JSON.stringify(body).slice(0, 60)).toEqual([field]);
      expect(res.body.details[field].join(" ")).toMatch(rule);
    }
    expect(Object.keys((await keep(room, "k-bad", {})).body.details)).toEqual(["author", "text"]);
    for (const body of ["{not json", "[1,2]", "null", '"text"', ""]) {
      const res = await api(`/api/rooms/${room}/asked/k-bad`, { method: "PUT", body, headers: { "content-type": "application/json" } });
      expect(res.status, body).toBe(400);
      expect(Object.keys(((await res.json()) as any).details), body).toEqual(["body"]);
    }
    // Past the Worker's body limit: refused before it is read, never a 500.
    const huge = await api(`/api/rooms/${room}/asked/k-bad`, { method: "PUT", json: { author: "A", text: "x".repeat(70 * 1024) } });
    expect(huge.status).toBe(413);
    expect((await take(room, "k-bad")).body.message).toBeNull();
    expect(await rows(room)).toEqual([]);
  });

  it("refuses an empty, oversized or hostile key with a 400 naming it, on both routes, before the body is read", async () => {
    const room = freshRoom("discord-asked");
    const rule = "Key must be 1-128 characters of A-Z, a-z, 0-9, '_' or '-'";
    for (const key of ["a%20b", "x".repeat(129), "..%2F..%2Fetc", "%E2%80%8Bk", "k%3Cscript%3E", "k.1", "k%00", "%27%20OR%201%3D1"]) {
      const put = await keep(room, key, MSG);
      expect(put.status, key).toBe(400);
      expect(put.body.details, key).toEqual({ key: [rule] });
      // A malformed body is not read for a bad key: the key is named, not the body.
      const raw = await api(`/api/rooms/${room}/asked/${key}`, { method: "PUT", body: "{not json", headers: { "content-type": "application/json" } });
      expect(((await raw.json()) as any).details, key).toEqual({ key: [rule] });
      const taken = await take(room, key);
      expect(taken.status, key).toBe(400);
      expect(taken.body.details, key).toEqual({ key: [rule] });
    }
    // Without the Worker's token nothing is kept or taken.
    expect((await api(`/api/rooms/${room}/asked/k-anon`, { method: "PUT", json: MSG, token: null })).status).toBe(401);
    expect((await api(`/api/rooms/${room}/asked/k-anon/take`, { method: "POST", token: "wrong-token-0123456789" })).status).toBe(401);
    // A key that names nothing is a 404 of the route, not a kept message.
    expect((await api(`/api/rooms/${room}/asked/`, { method: "PUT", json: MSG })).status).toBe(404);
    expect(await rows(room)).toEqual([]);
  });
});
