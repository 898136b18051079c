import { env } from "cloudflare:test";
import { infoResponseSchema } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { app } from "../src/http/app.ts";
import { TOKEN, api } from "./helpers.ts";

/** The Worker as configured here, with some variables changed (a new env object is parsed afresh). */
function withVars(vars: Record<string, string>, path = "/api/info", token: string | null = TOKEN) {
  const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
  return app.request(path, { headers }, { ...(env as object), ...vars });
}

describe("GET /api/info", () => {
  it("needs the token", async () => {
    for (const token of [null, "wrong"]) {
      const res = await api("/api/info", { token });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ code: "unauthorized" });
    }
  });

  it("says the sandbox's provider and, by default, that it has no network", async () => {
    const res = await api("/api/info");
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(infoResponseSchema.parse(body)).toEqual({ sandbox: { provider: "local", network: "none", allowedHosts: [], deniedHosts: [] } });
  });

  it("reports SANDBOX_NETWORK and its host lists as configured", async () => {
    const res = await withVars({ SANDBOX_PROVIDER: "cloudflare", SANDBOX_NETWORK: "registries", SANDBOX_ALLOWED_HOSTS: "pkgs.example.com, *.corp.example", SANDBOX_DENIED_HOSTS: "gitlab.com" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      sandbox: { provider: "cloudflare", network: "registries", allowedHosts: ["pkgs.example.com", "*.corp.example"], deniedHosts: ["gitlab.com"] },
    });
  });

  it("answers a malformed SANDBOX_NETWORK with one line naming it, not a stack trace", async () => {
    const res = await withVars({ SANDBOX_NETWORK: "internet" });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: string };
    expect(body.error).toBe('Worker misconfigured: SANDBOX_NETWORK must be none, registries, all or unset (none), not "internet"');
  });

  it("answers other methods with 405", async () => {
    const res = await api("/api/info", { method: "POST" });
    expect(res.status).toBe(405);
  });
});
