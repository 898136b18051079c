import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startedForTests } from "./helpers/lifecycle.ts";
import { startCloudflareStack } from "./helpers/cloudflare-stack.ts";
import type { Stack } from "./helpers/stack.ts";

/**
 * SANDBOX_NETWORK with SANDBOX_PROVIDER=cloudflare: what the real @cloudflare/sandbox
 * SDK, driven by the production Sandbox class, gives the room's container (the
 * stand-in records it; see worker/test/sandbox-stand-in/), and what a request from
 * inside the container gets from the outbound proxy the SDK installs.
 */

/** A server "on the internet" for the proxy to reach: 127.0.0.1 stands in for an allowed host. */
let site: Server;
let siteUrl: string;
beforeAll(async () => {
  site = createServer((_req, res) => res.end("reached the site"));
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((r) => site.close(() => r())));

function startWith(vars: Record<string, string>) {
  return () => startCloudflareStack(vars);
}

async function networkSeen(stack: Stack, room: string) {
  await stack.client.exec(room, { cmd: "true" });
  const res = await fetch(`${stack.workerUrl}/_stand-in/network?room=${room}`);
  return (await res.json()) as { start?: { enableInternet?: boolean; env?: Record<string, string> }; interceptedHttp: string[]; interceptedHttps: string[] };
}

async function probe(stack: Stack, room: string, url: string) {
  const res = await fetch(`${stack.workerUrl}/_stand-in/probe?room=${room}&url=${encodeURIComponent(url)}`);
  return (await res.json()) as { status: number; body: string } | null;
}

describe("SANDBOX_NETWORK unset (none)", () => {
  let stack: Stack;
  startedForTests(startWith({}), (s) => ({ stack } = s));

  it("starts the container without internet and routes nothing through a proxy", async () => {
    const seen = await networkSeen(stack, "net-none");
    expect(seen.start?.enableInternet).toBe(false);
    expect(seen.start?.env?.SANDBOX_INTERCEPT_HTTPS).toBeUndefined();
    expect(seen).toMatchObject({ interceptedHttp: [], interceptedHttps: [] });
    expect(await probe(stack, "net-none", siteUrl)).toBeNull();
  });
});

describe("SANDBOX_NETWORK=registries", () => {
  let stack: Stack;
  startedForTests(startWith({ SANDBOX_NETWORK: "registries", SANDBOX_ALLOWED_HOSTS: "127.0.0.1", SANDBOX_DENIED_HOSTS: "gitlab.com" }), (s) => ({ stack } = s));

  it("starts the container without its own internet, all HTTP and HTTPS through the proxy, trusting its certificate", async () => {
    const seen = await networkSeen(stack, "net-reg");
    expect(seen.start?.enableInternet).toBe(false);
    expect(seen.start?.env?.SANDBOX_INTERCEPT_HTTPS).toBe("1");
    expect(seen.interceptedHttp).toContain("*");
    expect(seen.interceptedHttps).toContain("*");
  });

  it("lets an allowed host through and refuses a host on no list", async () => {
    await networkSeen(stack, "net-reg-probe");
    expect(await probe(stack, "net-reg-probe", siteUrl)).toEqual({ status: 200, body: "reached the site" });
    expect(await probe(stack, "net-reg-probe", "http://example.com/")).toMatchObject({ status: 520, body: "Origin is disallowed" });
  });

  it("refuses a registry host that SANDBOX_DENIED_HOSTS names", async () => {
    await networkSeen(stack, "net-reg-denied");
    expect(await probe(stack, "net-reg-denied", "http://gitlab.com/")).toMatchObject({ status: 520 });
  });
});

describe("SANDBOX_NETWORK=all", () => {
  let stack: Stack;
  // An allowed host adds nothing to the whole internet, and must not become an allow-list that shuts the rest.
  startedForTests(startWith({ SANDBOX_NETWORK: "all", SANDBOX_ALLOWED_HOSTS: "only.example", SANDBOX_DENIED_HOSTS: "blocked.example" }), (s) => ({ stack } = s));

  it("starts the container with internet and refuses only the denied host", async () => {
    const seen = await networkSeen(stack, "net-all");
    expect(seen.start?.enableInternet).toBe(true);
    expect(await probe(stack, "net-all", "http://blocked.example/")).toMatchObject({ status: 520 });
    expect(await probe(stack, "net-all", siteUrl)).toEqual({ status: 200, body: "reached the site" });
  });
});
