import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../src/http/app.ts";
import { api, TOKEN } from "./helpers.ts";

let seq = 0;
/** A team id no other test uses. */
const freshTeam = () => `T${Date.now().toString(36).toUpperCase()}${(seq++).toString(36).toUpperCase()}`;

const BOT_TOKEN = "xoxe.xoxb-1-SECRET-BOT-TOKEN-abcdef";
const REFRESH_TOKEN = "xoxe-1-SECRET-REFRESH-TOKEN-123456";

function installationFor(team: string, token = BOT_TOKEN) {
  return {
    team: { id: team, name: "Acme" },
    isEnterpriseInstall: false,
    appId: "A0DUETAPP",
    authVersion: "v2",
    tokenType: "bot",
    user: { id: "U0INSTALLER", scopes: [] },
    bot: { token, refreshToken: REFRESH_TOKEN, expiresAt: 2_000_000_000, id: "B0BOT", userId: "U0BOT", scopes: ["app_mentions:read", "chat:write"] },
  };
}

const put = (key: string, json: unknown) => api(`/api/installations/${key}`, { method: "PUT", json });

describe("/api/installations", () => {
  it("stores, reads back and deletes an installation, keyed by team id", async () => {
    const team = freshTeam();
    expect((await api(`/api/installations/${team}`)).status).toBe(404);
    const stored = await put(team, { installation: installationFor(team) });
    expect(stored.status).toBe(200);
    expect(await stored.json()).toEqual({ version: 1 });
    const read = await api(`/api/installations/${team}`);
    expect(await read.json()).toEqual({ installation: installationFor(team), version: 1 });
    expect(await (await api(`/api/installations/${team}`, { method: "DELETE" })).json()).toEqual({ deleted: true });
    expect((await api(`/api/installations/${team}`)).status).toBe(404);
    expect(await (await api(`/api/installations/${team}`, { method: "DELETE" })).json()).toEqual({ deleted: false });
  });

  it("keys an org-wide install by its enterprise id and refuses one stored under a team id", async () => {
    const org = `E${freshTeam().slice(1)}`;
    const installation = { ...installationFor("T0IGNORED"), team: undefined, enterprise: { id: org, name: "Org" }, isEnterpriseInstall: true };
    expect((await put(org, { installation })).status).toBe(200);
    expect(((await (await api(`/api/installations/${org}`)).json()) as any).installation.enterprise.id).toBe(org);
    const wrong = await put(freshTeam(), { installation });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ details: { installation: [expect.stringMatching(/enterprise\.id must be the key/)] } });
  });

  it("records the workspaces an org-wide install answered in, lists them, and forgets them with the install", async () => {
    const org = `E${freshTeam().slice(1)}`;
    const [a, b] = [freshTeam(), freshTeam()];
    // Nothing is recorded for an org that is not installed.
    expect(await (await api(`/api/installations/${org}/teams/${a}`, { method: "PUT" })).json()).toEqual({ added: false });
    await put(org, { installation: { ...installationFor("T0IGNORED"), team: undefined, enterprise: { id: org }, isEnterpriseInstall: true } });
    for (const team of [a, b, a]) await api(`/api/installations/${org}/teams/${team}`, { method: "PUT" });
    expect(await (await api(`/api/installations/${org}/teams`)).json()).toEqual({ teams: [a, b] });
    await api(`/api/installations/${org}`, { method: "DELETE" });
    expect(await (await api(`/api/installations/${org}/teams`)).json()).toEqual({ teams: [] });
    const notOrg = await api(`/api/installations/${a}/teams`);
    expect(notOrg.status).toBe(400);
    expect(await notOrg.json()).toMatchObject({ details: { key: [expect.stringContaining("org-wide")] } });
    expect((await api(`/api/installations/${org}/teams/not-a-team`, { method: "PUT" })).status).toBe(400);
  });

  it("a compare-and-swap stores over the version it read, and a stale one gets 409 with the current version", async () => {
    const team = freshTeam();
    await put(team, { installation: installationFor(team) });
    const first = await put(team, { installation: installationFor(team, "xoxe.xoxb-rotated-1"), ifVersion: 1 });
    expect(await first.json()).toEqual({ version: 2 });
    const stale = await put(team, { installation: installationFor(team, "xoxe.xoxb-rotated-2"), ifVersion: 1 });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ code: "version_conflict", version: 2 });
    const read = (await (await api(`/api/installations/${team}`)).json()) as any;
    expect(read.installation.bot.token).toBe("xoxe.xoxb-rotated-1");
  });

  it("grants a version's refresh to one holder at a time, and none once the version moved on", async () => {
    const team = freshTeam();
    await put(team, { installation: installationFor(team) });
    const claim = (holder: string, version = 1) => api(`/api/installations/${team}/refresh`, { method: "POST", json: { version, holder, leaseMs: 30_000 } }).then((r) => r.json());
    const answers = await Promise.all(["a", "b", "a", "b", "c"].map((h) => claim(h)));
    const winners = new Set(answers.flatMap((a: any, i) => (a.granted ? [["a", "b", "a", "b", "c"][i]] : [])));
    expect(winners.size).toBe(1);
    const winner = [...winners][0];
    await put(team, { installation: installationFor(team, "xoxe.xoxb-new"), ifVersion: 1 });
    expect(await claim(winner)).toEqual({ granted: false, version: 2 });
    expect(await claim("c", 2)).toEqual({ granted: true, version: 2 });
  });

  it("keeps no token in clear text in the store's SQLite rows", async () => {
    const team = freshTeam();
    await put(team, { installation: installationFor(team) });
    const ns = (env as unknown as { INSTALLATIONS: DurableObjectNamespace }).INSTALLATIONS;
    const rows = await runInDurableObject(ns.get(ns.idFromName(team)), (_instance, state) => state.storage.sql.exec("SELECT * FROM installation").toArray());
    expect(rows).toHaveLength(1);
    const dump = rows
      .flatMap((row) => Object.values(row))
      .map((v) => (v instanceof ArrayBuffer ? new TextDecoder("latin1").decode(v) : String(v)))
      .join("\n");
    expect(dump).toContain(team);
    for (const secret of [BOT_TOKEN, REFRESH_TOKEN, "SECRET", "xoxe"]) expect(dump).not.toContain(secret);
  });

  it("answers bad input with 400/413 and a clear reason, never 500", async () => {
    const team = freshTeam();
    const cases: [RequestInit & { json?: unknown }, number, RegExp][] = [
      [{ method: "PUT", body: "" }, 400, /JSON/],
      [{ method: "PUT", body: "{not json", headers: { "content-type": "application/json" } }, 400, /JSON/],
      [{ method: "PUT", json: [] }, 400, /JSON object/],
      [{ method: "PUT", json: {} }, 400, /installation/],
      [{ method: "PUT", json: { installation: { ...installationFor(team), bot: { token: "" } } } }, 400, /"installation":\["Too small/],
      [{ method: "PUT", json: { installation: installationFor(team), ifVersion: "one" } }, 400, /ifVersion/],
      [{ method: "PUT", json: { installation: { ...installationFor(team), pad: "x".repeat(70_000) } } }, 413, /exceeds/],
    ];
    for (const [init, status, reason] of cases) {
      const res = await api(`/api/installations/${team}`, init);
      expect(res.status, JSON.stringify(init).slice(0, 80)).toBe(status);
      expect(JSON.stringify(await res.json())).toMatch(reason);
    }
    for (const key of ["t0lower", "X0WRONG", "T", `T${"A".repeat(50)}`, "T0..%2F"]) {
      const res = await api(`/api/installations/${key}`);
      expect(res.status, key).toBe(400);
      expect(await res.json()).toMatchObject({ details: { key: [expect.stringMatching(/team id/)] } });
    }
    const claim = await api(`/api/installations/${team}/refresh`, { method: "POST", json: { version: 0, holder: "" } });
    expect(claim.status).toBe(400);
    expect(Object.keys(((await claim.json()) as any).details).sort()).toEqual(["holder", "leaseMs", "version"]);
    expect((await api(`/api/installations/${team}`, { method: "PATCH" })).status).toBe(405);
    expect((await api(`/api/installations/${team}`, { token: null })).status).toBe(401);
  });

  it("refuses every installation route with a clear 503 when the Worker has no DUET_STORE_KEY", async () => {
    const team = freshTeam();
    for (const [key, value] of [["DUET_STORE_KEY", undefined], ["DUET_STORE_KEY", "too-short"]] as const) {
      const bare = { ...(env as object), [key]: value };
      for (const method of ["GET", "PUT", "DELETE"]) {
        const req = new Request(`https://duet.test/api/installations/${team}`, {
          method,
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          body: method === "PUT" ? JSON.stringify({ installation: installationFor(team) }) : undefined,
        });
        const res = await app.fetch(req, bare);
        expect(res.status, `${method} with ${value}`).toBe(503);
        expect(await res.json()).toMatchObject({ code: "store_closed", error: expect.stringMatching(/DUET_STORE_KEY/) });
      }
    }
    expect((await api(`/api/installations/${team}`)).status).toBe(404);
  });
});
