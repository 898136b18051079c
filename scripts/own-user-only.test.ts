import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canActAsOtherUser } from "../test/helpers/other-user.ts";
import { ownUserOnly } from "./own-user-only.ts";

/**
 * A server of a process that called ownUserOnly() (as `pnpm dev:worker` does before
 * wrangler starts miniflare's loopback server) answers its own user and closes
 * another local user's connection unanswered, over IPv4 and IPv6 loopback.
 */

let server: Server;
let port: number;
let served = 0;

beforeAll(async () => {
  ownUserOnly();
  server = createServer((_req, res) => (served++, res.end("answered")));
  await new Promise<void>((resolve) => server.listen({ port: 0, host: "::", ipv6Only: false }, resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise((resolve) => server?.close(resolve)));

/** curl's exit code and body for a POST to `url`, run as `nobody` when `other` (not blocking this process, which serves it). */
function curl(url: string, other: boolean): Promise<{ code: number | null; body: string }> {
  const argv = ["curl", "-s", "-m", "5", "-X", "POST", "--data-binary", "hello", url];
  const [cmd, ...args] = other ? ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "--", ...argv] : argv;
  return new Promise((resolve) => {
    const child = spawn(cmd!, args, { stdio: ["ignore", "pipe", "ignore"] });
    let body = "";
    child.stdout!.on("data", (d: Buffer) => (body += d));
    child.once("close", (code) => resolve({ code, body }));
  });
}

describe.skipIf(!canActAsOtherUser)("ownUserOnly", () => {
  it.each(["127.0.0.1", "[::1]"])("over %s, this user's request is answered; another user's connection is closed before the server reads it", async (host) => {
    const url = `http://${host}:${port}/core/log`;
    expect(await curl(url, false)).toEqual({ code: 0, body: "answered" });
    const before = served;
    const other = await curl(url, true);
    // 52: the server closed the connection with no answer; 56: reset while sending.
    expect([52, 56]).toContain(other.code);
    expect(other.body).toBe("");
    expect(served).toBe(before);
  });
});
