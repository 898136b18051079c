import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WorkerClient } from "./client.ts";
import { DuetError, describeForUser } from "./errors.ts";

const servers: { close(): void }[] = [];
afterEach(() => servers.splice(0).forEach((s) => s.close()));

async function serve(handler: (req: IncomingMessage, res: ServerResponse, n: number) => void): Promise<string> {
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => handler(req, res, n++));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  servers.push({ close: () => server.close() });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};
const okMessage = { reply: "hi", messages: [], runs: [] };
const noWait = async () => {};

describe("WorkerClient", () => {
  it("sends the bearer token and JSON body, and parses the answer", async () => {
    let seen: { auth?: string; url?: string } = {};
    const base = await serve((req, res) => {
      seen = { auth: req.headers.authorization, url: req.url };
      json(res, 200, okMessage);
    });
    const client = new WorkerClient({ baseUrl: `${base}/`, token: "tok" });
    expect(await client.message("slack-T-C", { text: "hello" })).toEqual(okMessage);
    expect(seen).toEqual({ auth: "Bearer tok", url: "/api/rooms/slack-T-C/message" });
  });

  it("maps error bodies to DuetError with code, details and Retry-After", async () => {
    const base = await serve((_req, res) =>
      json(res, 429, { error: "this room already has 20 requests waiting", code: "room_busy", retryable: true }, { "retry-after": "7" }),
    );
    const err = await new WorkerClient({ baseUrl: base, token: "t" }).message("r", { text: "x" }).catch((e) => e);
    expect(err).toBeInstanceOf(DuetError);
    expect(err).toMatchObject({ code: "room_busy", status: 429, retryable: true, retryAfterMs: 7000 });
    expect(describeForUser(err)).toMatch(/too many requests waiting/);
  });

  it("retries a keyed message after a 500 and returns the eventual answer", async () => {
    const base = await serve((_req, res, n) => (n < 2 ? json(res, 500, { error: "internal error", code: "internal" }) : json(res, 200, okMessage)));
    const client = new WorkerClient({ baseUrl: base, token: "t", sleep: noWait });
    expect(await client.message("r", { text: "x", idempotencyKey: "Ev1" })).toEqual(okMessage);
  });

  it("does not repeat an unkeyed message or a command after a 500", async () => {
    let calls = 0;
    const base = await serve((_req, res) => {
      calls++;
      json(res, 500, { error: "internal error", code: "internal" });
    });
    const client = new WorkerClient({ baseUrl: base, token: "t", sleep: noWait });
    await expect(client.exec("r", { cmd: "rm -rf build" })).rejects.toMatchObject({ code: "internal" });
    await expect(client.message("r", { text: "x" })).rejects.toMatchObject({ code: "internal" });
    expect(calls).toBe(2);
  });

  it("reports a Worker that is down, after retrying, as worker_unreachable with advice", async () => {
    const base = await serve((_req, res) => json(res, 200, {}));
    servers.splice(0).forEach((s) => s.close());
    let waits = 0;
    const client = new WorkerClient({ baseUrl: base, token: "t", retries: 3, sleep: async () => void waits++ });
    const err = await client.exec("r", { cmd: "ls" }).catch((e) => e);
    expect(err).toMatchObject({ code: "worker_unreachable" });
    expect(waits).toBe(3);
    expect(describeForUser(err)).toMatch(/can't be reached/);
  });

  it("times out a slow Worker as worker_timeout", async () => {
    const base = await serve(() => {});
    const client = new WorkerClient({ baseUrl: base, token: "t", timeoutMs: 200, retries: 0 });
    await expect(client.history("r")).rejects.toMatchObject({ code: "worker_timeout" });
  });

  it("gives a clean-up the time it asks for, beyond the client's own timeout", async () => {
    const base = await serve((_req, res) => void setTimeout(() => json(res, 200, { cleaned: true, roomId: "slack-T1" }), 400));
    const client = new WorkerClient({ baseUrl: base, token: "t", timeoutMs: 200, retries: 0 });
    await expect(client.cleanup("slack-T1")).rejects.toMatchObject({ code: "worker_timeout" });
    await expect(client.cleanup("slack-T1", { timeoutMs: 5_000 })).resolves.toEqual({ cleaned: true, roomId: "slack-T1" });
  });

  it("rejects answers that are not JSON or do not match the API", async () => {
    const base = await serve((_req, res, n) => (n === 0 ? res.end("<html>") : json(res, 200, { nope: 1 })));
    const client = new WorkerClient({ baseUrl: base, token: "t", retries: 0 });
    await expect(client.history("r")).rejects.toMatchObject({ code: "bad_response" });
    await expect(client.history("r")).rejects.toMatchObject({ code: "bad_response" });
  });
});

describe("WorkerClient and a full room", () => {
  it("waits out a 429 for its Retry-After and asks again, even without an idempotency key", async () => {
    const waits: number[] = [];
    const base = await serve((_req, res, n) =>
      n < 2 ? json(res, 429, { error: "busy", code: "room_busy", retryable: true, retryAfterMs: 1500 }) : json(res, 200, okMessage),
    );
    const client = new WorkerClient({ baseUrl: base, token: "t", sleep: async (ms) => void waits.push(ms) });
    expect(await client.message("r", { text: "x" })).toEqual(okMessage);
    expect(waits).toEqual([1500, 1500]);
  });
});

describe("WorkerClient and a proxy in front of the Worker", () => {
  it("treats a bare 503 (no Duet error body) as the back end unreachable and retries a keyed request", async () => {
    const base = await serve((_req, res, n) => {
      if (n === 0) {
        res.writeHead(503, { "content-type": "text/plain" });
        return res.end("Your worker restarted mid-request. Please try sending the request again.");
      }
      json(res, 200, okMessage);
    });
    const client = new WorkerClient({ baseUrl: base, token: "t", sleep: noWait });
    expect(await client.message("r", { text: "x", idempotencyKey: "Ev9" })).toEqual(okMessage);
    const once = new WorkerClient({ baseUrl: await serve((_req, res) => json(res, 502, { message: "bad gateway" })), token: "t", retries: 0 });
    const err = await once.message("r", { text: "x" }).catch((e) => e);
    expect(err).toMatchObject({ code: "worker_unreachable", status: 502 });
    expect(describeForUser(err)).not.toMatch(/model/);
  });

  it("asks GET /api/info and checks the answer against the API", async () => {
    const info = { sandbox: { provider: "cloudflare", network: "registries", allowedHosts: ["pkgs.example.com"], deniedHosts: [] } };
    let seen: { method?: string; url?: string } = {};
    const base = await serve((req, res, n) => {
      seen = { method: req.method, url: req.url };
      json(res, 200, n === 0 ? info : { sandbox: { provider: "cloudflare", network: "some" } });
    });
    const client = new WorkerClient({ baseUrl: base, token: "tok" });
    expect(await client.info()).toEqual(info);
    expect(seen).toEqual({ method: "GET", url: "/api/info" });
    await expect(client.info()).rejects.toMatchObject({ code: "bad_response" });
  });
});
