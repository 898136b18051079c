import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { startFakeDiscord, type FakeDiscord } from "../fakes/discord/index.ts";

/**
 * The fake Discord enforces the rules the bot is tested against (deadlines,
 * limits, error codes) the way Discord answers them; these tests pin that down
 * with plain HTTP and WebSocket clients.
 */

describe("the fake Discord", () => {
  let fake: FakeDiscord;
  let guild: string;
  let channel: string;
  let now = 1_000_000;
  beforeAll(async () => {
    fake = await startFakeDiscord({ now: () => now });
    guild = fake.addGuild();
    channel = fake.addChannel(guild, "general");
  });
  afterAll(async () => {
    await fake?.close();
  });

  const api = (path: string, init: RequestInit & { json?: unknown } = {}) =>
    fetch(`${fake.api}/v10${path}`, {
      ...init,
      headers: { authorization: `Bot ${fake.token}`, "content-type": "application/json", ...(init.headers as Record<string, string>) },
      body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
    }).then(async (r) => ({ status: r.status, body: r.status === 204 ? null : await r.json(), headers: r.headers }));

  it("answers the REST routes with Discord's error codes", async () => {
    expect((await api("/users/@me", { headers: { authorization: "Bot wrong" } })).status).toBe(401);
    expect((await api(`/channels/1/messages`, { method: "POST", json: { content: "x" } })).body).toMatchObject({ code: 10003 });
    expect((await api(`/channels/${channel}/messages`, { method: "POST", json: { content: "x".repeat(2001) } })).body).toMatchObject({ code: 50035, errors: { content: {} } });
    expect((await api(`/channels/${channel}/messages`, { method: "POST", json: { content: "" } })).body).toMatchObject({ code: 50006 });
    const reply = await api(`/channels/${channel}/messages`, { method: "POST", json: { content: "hi", message_reference: { message_id: "42" } } });
    expect(reply.body).toMatchObject({ code: 50035, errors: { message_reference: {} } });
    const ok = await api(`/channels/${channel}/messages`, { method: "POST", json: { content: "hello" } });
    expect(ok.body).toMatchObject({ content: "hello", author: { id: fake.botUser.id, bot: true } });
  });

  it("allows one interaction response within the deadline, and edits only while the token lives", async () => {
    const rec = fake.interaction(channel, { subcommand: "help" });
    const cb = (id: string, token: string) => api(`/interactions/${id}/${token}/callback`, { method: "POST", json: { type: 5 } });
    expect((await cb(rec.id, "wrong-token")).body).toMatchObject({ code: 10062 });
    expect((await cb(rec.id, rec.token)).status).toBe(204);
    expect((await cb(rec.id, rec.token)).body).toMatchObject({ code: 40060 });
    const edit = await api(`/webhooks/${fake.applicationId}/${rec.token}/messages/%40original`, { method: "PATCH", json: { content: "done" } });
    expect(edit.body).toMatchObject({ content: "done" });
    expect(rec.original?.content).toBe("done");
    now += 15 * 60_000 + 1; // past the 15-minute token
    expect((await api(`/webhooks/${fake.applicationId}/${rec.token}`, { method: "POST", json: { content: "late" } })).body).toMatchObject({ code: 50027 });

    const late = fake.interaction(channel, { subcommand: "help" });
    now += 3_001; // past the 3 s deadline
    expect((await cb(late.id, late.token)).body).toMatchObject({ code: 10062 });
  });

  it("parses multipart uploads and answers 429 with rate limit headers when told to", async () => {
    const form = new FormData();
    form.append("payload_json", JSON.stringify({ content: "file", attachments: [{ id: 0 }] }));
    form.append("files[0]", new Blob(["line 1\nline 2\n"], { type: "text/plain" }), "out.txt");
    const res = await fetch(`${fake.api}/v10/channels/${channel}/messages`, { method: "POST", headers: { authorization: `Bot ${fake.token}` }, body: form });
    expect(await res.json()).toMatchObject({ content: "file", attachments: [{ filename: "out.txt", size: 14 }] });
    expect(fake.calls.at(-1)!.files[0]).toMatchObject({ filename: "out.txt", text: "line 1\nline 2\n" });

    fake.rateLimitNext(1, { retryAfterSeconds: 1.5, route: "typing" });
    const limited = await api(`/channels/${channel}/typing`, { method: "POST" });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1.5");
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(limited.body).toMatchObject({ retry_after: 1.5, global: false });
    expect((await api(`/channels/${channel}/typing`, { method: "POST" })).status).toBe(204);
  });

  it("runs a gateway session: HELLO, IDENTIFY -> READY + GUILD_CREATE, heartbeat ACK, RESUME replaying what was missed", async () => {
    const { url } = (await api("/gateway/bot")).body as { url: string };
    const connect = (u: string) => {
      const ws = new WebSocket(`${u}?v=10&encoding=json`);
      const queue: any[] = [];
      const waiters: ((p: any) => void)[] = [];
      ws.on("message", (raw) => {
        const p = JSON.parse(String(raw));
        const w = waiters.shift();
        if (w) w(p);
        else queue.push(p);
      });
      const next = () => new Promise<any>((resolve) => (queue.length ? resolve(queue.shift()) : waiters.push(resolve)));
      return { ws, next, send: (p: unknown) => ws.send(JSON.stringify(p)) };
    };
    const a = connect(url);
    expect(await a.next()).toMatchObject({ op: 10, d: { heartbeat_interval: expect.any(Number) } });
    a.send({ op: 2, d: { token: fake.token, intents: 1, properties: {}, shard: [0, 1] } });
    const ready = await a.next();
    expect(ready).toMatchObject({ op: 0, t: "READY", s: 1, d: { guilds: [{ id: guild, unavailable: true }] } });
    expect(await a.next()).toMatchObject({ t: "GUILD_CREATE", s: 2, d: { id: guild, channels: [expect.objectContaining({ id: channel })] } });
    a.send({ op: 1, d: 2 });
    expect(await a.next()).toMatchObject({ op: 11 });
    a.ws.close(4000);
    await new Promise((r) => a.ws.once("close", r));
    const missed = fake.message(channel, "while you were away");
    const b = connect(ready.d.resume_gateway_url);
    await b.next();
    b.send({ op: 6, d: { token: fake.token, session_id: ready.d.session_id, seq: 2 } });
    expect(await b.next()).toMatchObject({ t: "MESSAGE_CREATE", s: 3, d: { id: missed.id } });
    expect(await b.next()).toMatchObject({ t: "RESUMED", s: 4 });
    b.send({ op: 6, d: { token: fake.token, session_id: "unknown", seq: 1 } });
    expect(await b.next()).toMatchObject({ op: 9, d: false });
    b.ws.close();
  });
});
