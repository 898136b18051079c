import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { workerFetch } from "./worker-fetch.ts";

// The bots' Worker clients send their small JSON calls through workerFetch: what the
// client reads of an answer, and the failures it maps (transport.ts), must be what fetch gives.

let server: Server | undefined;
afterEach(async () => {
  const s = server;
  server = undefined;
  if (!s) return;
  s.closeAllConnections();
  await new Promise((r) => s.close(r));
});

async function serve(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<string> {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => handler(req, body, res));
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const post = (url: string, signal?: AbortSignal) => workerFetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}", ...(signal ? { signal } : {}) });

describe("workerFetch", () => {
  it("gives a small JSON call's answer as fetch would: status, headers, body, and none where a status has none", async () => {
    const base = await serve((req, body, res) => {
      if (req.url === "/empty") return void res.writeHead(204, { "x-duet": "a" }).end();
      res.writeHead(201, { "content-type": "application/json", "x-duet": "b" }).end(JSON.stringify({ seen: JSON.parse(body), auth: req.headers.authorization }));
    });
    const res = await workerFetch(`${base}/json`, { method: "POST", headers: { authorization: "Bearer tok", "content-type": "application/json" }, body: JSON.stringify({ n: 1 }) });
    expect(res.status).toBe(201);
    expect(res.headers.get("x-duet")).toBe("b");
    expect(await res.json()).toEqual({ seen: { n: 1 }, auth: "Bearer tok" });
    const empty = await workerFetch(`${base}/empty`, { method: "DELETE", headers: {}, body: "{}" });
    expect([empty.status, empty.headers.get("x-duet"), empty.body]).toEqual([204, "a", null]);
  });

  it("keeps a refusal's status and body for the client to map", async () => {
    const base = await serve((_req, _body, res) => void res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "no such room", code: "not_found" })));
    const res = await post(`${base}/api/rooms/slack-T-C/stop`);
    expect([res.ok, res.status, await res.json()]).toEqual([false, 404, { error: "no such room", code: "not_found" }]);
  });

  it("throws the signal's reason when it fires, as fetch does (the client's timeout)", async () => {
    const base = await serve(() => undefined);
    await expect(post(`${base}/x`, AbortSignal.timeout(100))).rejects.toMatchObject({ name: "TimeoutError" });
  });

  it("throws fetch's TypeError with the cause when nothing listens (the client marks it refused)", async () => {
    const base = await serve(() => undefined);
    await new Promise((r) => server!.close(r));
    server = undefined;
    const err = await post(`${base}/x`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect(err).toMatchObject({ message: "fetch failed", cause: { code: "ECONNREFUSED" } });
  });
});
