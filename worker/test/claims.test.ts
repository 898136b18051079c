import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api } from "./helpers.ts";

let seq = 0;
/** A scope no other test uses. */
const freshScope = () => `slack-T${Date.now().toString(36).toUpperCase()}${(seq++).toString(36)}`;

const claim = (scope: string, json: unknown) => api(`/api/claims/${scope}`, { method: "POST", json });
const first = async (scope: string, id: string) => ((await (await claim(scope, { id })).json()) as { first: boolean }).first;
const stub = (scope: string) => (env as unknown as { EVENT_CLAIMS: DurableObjectNamespace }).EVENT_CLAIMS.getByName(scope);

describe("/api/claims", () => {
  it("the first claim of an id wins and every later one, from any caller, is told it was seen", async () => {
    const scope = freshScope();
    expect(await first(scope, "Ev1")).toBe(true);
    expect(await first(scope, "Ev1")).toBe(false);
    expect(await first(scope, "Ev2")).toBe(true);
    // Scopes are separate: the same id in another workspace is its own delivery.
    expect(await first(freshScope(), "Ev1")).toBe(true);
  });

  it("ten claims of one id at once: exactly one wins", async () => {
    const scope = freshScope();
    const answers = await Promise.all(Array.from({ length: 10 }, () => first(scope, "EvRace")));
    expect(answers.filter(Boolean)).toHaveLength(1);
  });

  it("a claim past its TTL is swept by the alarm, and the id may be claimed again", async () => {
    const scope = freshScope();
    expect(await (await claim(scope, { id: "EvOld", ttlMs: 1_000 })).json()).toEqual({ first: true });
    expect(await first(scope, "EvOld")).toBe(false);
    // Make the claim look a second old instead of waiting one out.
    await runInDurableObject(stub(scope), (_o, state: DurableObjectState) => {
      state.storage.sql.exec("UPDATE claim SET until = ?", Date.now() - 1);
    });
    expect(await runDurableObjectAlarm(stub(scope))).toBe(true);
    const left = await runInDurableObject(stub(scope), (_o, state: DurableObjectState) => state.storage.sql.exec("SELECT COUNT(*) AS n FROM claim").one().n);
    expect(left).toBe(0);
    expect(await first(scope, "EvOld")).toBe(true);
  });

  it("refuses a bad scope, a missing id and a TTL out of range with 400 and the field named", async () => {
    const bad = await claim("slack T1", { id: "Ev1" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: "invalid request", details: { scope: [expect.stringContaining("Scope")] } });
    const noId = await claim(freshScope(), {});
    expect(noId.status).toBe(400);
    expect(await noId.json()).toMatchObject({ details: { id: [expect.any(String)] } });
    const long = await claim(freshScope(), { id: "Ev1", ttlMs: 10 * 24 * 60 * 60 * 1000 });
    expect(long.status).toBe(400);
    expect(await long.json()).toMatchObject({ details: { ttlMs: [expect.any(String)] } });
    expect((await api(`/api/claims/${freshScope()}`)).status).toBe(405);
  });
});
