import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { checkWorkerToken } from "./worker-token.ts";

/** The real Worker is exercised by test/built/*; here, answers it could give and a proxy's. */

const servers: { close(): void }[] = [];
afterEach(() => servers.splice(0).forEach((s) => s.close()));

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  servers.push({ close: () => server.close() });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const json = (status: number, body: unknown) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
};

describe("checkWorkerToken", () => {
  it("sends the token and accepts the Worker's 404 for the API root", async () => {
    let auth: string | undefined;
    const url = await serve((req, res) => {
      auth = req.headers.authorization;
      json(404, { error: "not found", code: "not_found" })(req, res);
    });
    expect(await checkWorkerToken(url, "s3cret")).toEqual({ status: "accepted" });
    expect(auth).toBe("Bearer s3cret");
  });

  it("reports a 401 as refused, naming DUET_API_TOKEN", async () => {
    const url = await serve(json(401, { error: "missing or wrong API token", code: "unauthorized" }));
    expect(await checkWorkerToken(url, "wrong")).toEqual({ status: "refused", reason: expect.stringContaining("refused DUET_API_TOKEN") });
  });

  it("reports a Worker with no token set as refused, and a proxy's 503 as unknown", async () => {
    const closed = await serve(json(503, { error: "the Worker has no DUET_API_TOKEN set", code: "unauthorized" }));
    expect((await checkWorkerToken(closed, "t")).status).toBe("refused");
    const proxy = await serve((_req, res) => res.writeHead(503).end("upstream unavailable"));
    expect(await checkWorkerToken(proxy, "t")).toEqual({ status: "unknown", reason: expect.stringContaining("HTTP 503") });
  });

  it("reports an unreachable Worker as unknown", async () => {
    expect(await checkWorkerToken("http://127.0.0.1:9", "t")).toEqual({ status: "unknown", reason: expect.stringContaining("cannot reach") });
  });
});
