import { Agent, createServer, get, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, test } from "vitest";
import { IDLE_CONNECTION_MS, outlastPooledClients } from "./keep-alive.ts";

// A pooled client (workerd, undici) reuses an idle connection for its next request; the
// server must not be closing that connection at the same moment, or the request is lost.

let server: Server | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  agent?.destroy();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

/** Serves two requests through one keep-alive pool; returns the server's sockets and each one's idle deadline after its answer. */
async function twoRequests(make: (s: Server) => Server): Promise<{ sockets: Socket[]; idleMs: number[] }> {
  const sockets: Socket[] = [];
  const idleMs: number[] = [];
  server = make(
    createServer((req, res) => {
      sockets.push(req.socket);
      // Node arms the idle deadline once the answer is written.
      res.once("finish", () => idleMs.push(req.socket.timeout ?? 0));
      res.end("ok");
    }),
  );
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  agent = new Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; i < 2; i++) {
    await new Promise<void>((resolve, reject) => {
      get({ host: "127.0.0.1", port, agent }, (res) => {
        res.resume();
        res.on("end", resolve);
      }).on("error", reject);
    });
  }
  return { sockets, idleMs };
}

describe("outlastPooledClients", () => {
  test("an idle connection stays open far past Node's 5 s default, so the pooled client is the side that closes it", async () => {
    const { sockets, idleMs } = await twoRequests(outlastPooledClients);
    expect(sockets[1]).toBe(sockets[0]);
    // Node adds a second of its own to the deadline.
    for (const ms of idleMs) expect(ms).toBeGreaterThanOrEqual(IDLE_CONNECTION_MS);
    expect(server!.headersTimeout).toBeGreaterThan(IDLE_CONNECTION_MS);
  });

  test("without it, Node closes an idle connection after 5 s: the race a pooled client loses", async () => {
    const { idleMs } = await twoRequests((s) => s);
    expect(idleMs[0]).toBeLessThanOrEqual(6_000);
  });
});
