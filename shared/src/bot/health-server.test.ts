import { afterEach, describe, expect, it } from "vitest";
import { type Health, startHealthServer, type HealthServer } from "./health-server.ts";

let server: HealthServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("the /healthz server", () => {
  it("answers the check as it is at each request: 200 ok, then 503 with the reason", async () => {
    let now: Health = { ok: true };
    server = await startHealthServer(0, () => now, "127.0.0.1");
    const url = `http://127.0.0.1:${server.port}/healthz`;
    const up = await fetch(url);
    expect([up.status, await up.json()]).toEqual([200, { ok: true }]);
    now = { ok: false, reason: "shard 0 reconnecting" };
    const down = await fetch(url);
    expect([down.status, await down.json()]).toEqual([503, { ok: false, reason: "shard 0 reconnecting" }]);
  });

  it("answers 404 for other paths and 405 for other methods, never running the check", async () => {
    server = await startHealthServer(0, () => {
      throw new Error("the check must not run");
    }, "127.0.0.1");
    const base = `http://127.0.0.1:${server.port}`;
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(`${base}/healthz`, { method: "POST" })).status).toBe(405);
  });

  it("names HEALTH_PORT when the port is taken", async () => {
    server = await startHealthServer(0, () => ({ ok: true }), "127.0.0.1");
    await expect(startHealthServer(server.port, () => ({ ok: true }), "127.0.0.1")).rejects.toThrow(`HEALTH_PORT ${server.port} is already in use`);
  });
});
