import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WorkerClient } from "./client.ts";
import { DuetError, describeForUser } from "../wire/errors.ts";

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
    const err = await new WorkerClient({ baseUrl: base, token: "t", sleep: noWait }).message("r", { text: "x" }).catch((e) => e);
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

describe("WorkerClient and a room's run policy, approvals and audit", () => {
  it("calls each control route and parses its answer", async () => {
    const seen: string[] = [];
    const approval = { id: "a-1", cmd: "ls", expiresAt: 9, decision: "run", decidedBy: "U2", decidedAt: 5, requestedBy: "U1" };
    const run = { cmd: "ls", exitCode: 0, stdout: "", stderr: "", truncated: false, durationMs: 3 };
    const base = await serve((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url!.endsWith("/policy")) return json(res, 200, { runPolicy: "approve" });
      if (req.url!.includes("/approvals/")) return json(res, 200, { approval, run });
      if (req.url!.endsWith("/audit")) return json(res, 200, { entries: [{ at: 1, kind: "direct", cmd: "ls", requestedBy: "U1", exitCode: 0, durationMs: 3 }] });
      json(res, 200, { cleaned: true, roomId: "slack-T1-C1" });
    });
    const client = new WorkerClient({ baseUrl: base, token: "t", retries: 0 });
    expect(await client.policy("slack-T1-C1")).toEqual({ runPolicy: "approve" });
    expect(await client.setPolicy("slack-T1-C1", { runPolicy: "approve", userId: "U1" })).toEqual({ runPolicy: "approve" });
    expect(await client.decide("slack-T1-C1", "a-1", { decision: "run", userId: "U2" })).toEqual({ approval, run });
    expect((await client.audit("slack-T1-C1")).entries).toHaveLength(1);
    await client.cleanup("slack-T1-C1", { userId: "U 3" });
    expect(seen).toEqual([
      "GET /api/rooms/slack-T1-C1/policy",
      "PUT /api/rooms/slack-T1-C1/policy",
      "POST /api/rooms/slack-T1-C1/approvals/a-1",
      "GET /api/rooms/slack-T1-C1/audit",
      "DELETE /api/rooms/slack-T1-C1?userId=U%203",
    ]);
  });

  it("maps a decided, expired or unknown approval to its code, and never repeats a decision", async () => {
    const bodies = [
      [409, { error: "already run by U1", code: "already_decided" }],
      [410, { error: "expired", code: "approval_expired" }],
      [404, { error: "no such approval in this room", code: "not_found" }],
      [500, { error: "internal error", code: "internal" }],
    ] as const;
    const base = await serve((_req, res, n) => json(res, bodies[n][0], bodies[n][1]));
    const client = new WorkerClient({ baseUrl: base, token: "t", sleep: noWait });
    const decide = () => client.decide("r", "a-1", { decision: "run", userId: "U2" }).catch((e) => e);
    const decided = await decide();
    expect(decided).toMatchObject({ code: "already_decided", status: 409 });
    expect(describeForUser(decided)).toMatch(/already decided \(already run by U1\)/);
    const expired = await decide();
    expect(expired).toMatchObject({ code: "approval_expired", status: 410 });
    expect(describeForUser(expired)).toMatch(/expired; nothing was run/);
    expect(await decide()).toMatchObject({ code: "not_found" });
    // One request for the 500: a decision that may have gone through is not sent again.
    expect(await decide()).toMatchObject({ code: "internal", status: 500 });
  });
});
