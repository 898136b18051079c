import { env, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, history, send } from "./helpers.ts";

const AS = (env as unknown as Record<string, string>).FAKE_MCP_OAUTH_URL;
const GATED = `${AS}/gated`;

let n = 0;
function workspace() {
  const ws = `cli-oauth${Date.now().toString(36)}${(n++).toString(36)}`;
  return { ws, room: `${ws}-a` };
}

interface FakeLog {
  grants: { type: string; ok: boolean; why?: string }[];
  calls: { generation: number }[];
  refused: number;
  tokens: string[];
}
const fakeLog = async (): Promise<FakeLog> => (await fetch(`${AS}/_log`)).json();

async function addGated(ws: string, by = "U-admin") {
  const res = await api(`/api/tools/${ws}/gated`, { method: "PUT", json: { url: GATED, userId: by } });
  expect(res.status).toBe(201);
  return { text: await res.clone().text(), body: (await res.json()) as { authorize?: { url?: string; problem?: string } } };
}

/** What a person's browser does with the link: the authorization server consents at once and sends it back to Duet's callback. */
async function click(link: string): Promise<{ status: number; page: string; callback: string }> {
  const consent = await fetch(link, { redirect: "manual" });
  expect(consent.status).toBe(302);
  const callback = consent.headers.get("location")!;
  expect(callback.startsWith("https://duet.test/oauth/mcp/callback?")).toBe(true);
  const back = await SELF.fetch(callback);
  return { status: back.status, page: await back.text(), callback };
}

async function listing(ws: string, userId?: string) {
  const res = await api(`/api/tools/${ws}${userId ? `?userId=${userId}` : ""}`);
  expect(res.status).toBe(200);
  const text = await res.text();
  return { text, servers: (JSON.parse(text) as { servers: { name: string; error?: string; needsAuthorization?: boolean; authorizeUrl?: string; tools: { name: string }[] }[] }).servers };
}

async function enable(room: string) {
  expect((await api(`/api/rooms/${room}/tools/gated`, { method: "PUT", json: { userId: "U-admin" } })).status).toBe(200);
}

/** The sealed rows the workspace's store keeps for OAuth, as raw bytes read as text. */
async function storedOAuth(ws: string): Promise<string> {
  const ns = (env as unknown as { TOOL_SERVERS: DurableObjectNamespace }).TOOL_SERVERS;
  return runInDurableObject(ns.get(ns.idFromName(ws)), (_i, state) => {
    const rows = [...state.storage.sql.exec("SELECT * FROM tool_oauth").toArray(), ...state.storage.sql.exec("SELECT * FROM tool_oauth_pending").toArray()];
    return rows.map((r) => Object.values(r).map((v) => (v instanceof ArrayBuffer ? new TextDecoder().decode(v) : String(v))).join("|")).join("\n");
  });
}

describe("a tool server that asks for OAuth", () => {
  it("adding it answers the link to the adder only; the callback stores the token sealed, and the room answers with the gated tool's result", async () => {
    const { ws, room } = workspace();
    const added = await addGated(ws);
    const link = added.body.authorize?.url;
    expect(link).toMatch(new RegExp(`^${AS}/authorize\\?`));
    const params = new URL(link!).searchParams;
    expect(params.get("code_challenge_method")).toBe("S256");
    expect(params.get("redirect_uri")).toBe("https://duet.test/oauth/mcp/callback");
    expect(params.get("resource")).toBe(GATED);
    // Before anyone authorizes: the listing says so, and shows the link to the person who added it, and to no one else.
    const before = await listing(ws);
    expect(before.servers).toMatchObject([{ name: "gated", tools: [], needsAuthorization: true, error: "it needs to be authorized; the person who added it gets the link with `/duet tools`" }]);
    expect(before.text).not.toContain("/authorize");
    expect((await listing(ws, "U-someone-else")).text).not.toContain("/authorize");
    expect((await listing(ws, "U-admin")).servers[0].authorizeUrl).toBe(link);

    const back = await click(link!);
    expect(back.status).toBe(200);
    expect(back.page).toContain("Duet can now use the tool server gated.");

    expect((await listing(ws)).servers).toMatchObject([{ name: "gated", tools: [{ name: "count", readOnly: true }] }]);
    expect((await listing(ws)).servers[0].needsAuthorization).toBeUndefined();
    await enable(room);
    const turn = await send(room, `SAY: Counting. <tool name="gated.count">{}</tool> (${ws})`);
    expect(turn.status).toBe(200);
    expect(turn.body.runs).toMatchObject([{ cmd: "tool: gated.count {}", exitCode: 0, stdout: "there are 42 open issues" }]);
    expect(turn.body.reply).toContain("there are 42 open issues");

    // The tokens are nowhere a person or a client can read them, and sealed at rest.
    const { tokens } = await fakeLog();
    const seen = [added.text, back.page, back.callback, (await listing(ws, "U-admin")).text, JSON.stringify(turn.body), JSON.stringify(await history(room))].join("\n");
    const stored = await storedOAuth(ws);
    expect(stored).toContain("gated");
    for (const token of tokens) {
      expect(seen).not.toContain(token);
      expect(stored).not.toContain(token);
    }

    // Removing the server forgets its tokens: added again, it asks to be authorized again.
    expect(await (await api(`/api/tools/${ws}/gated`, { method: "DELETE" })).json()).toEqual({ deleted: true });
    expect(await storedOAuth(ws)).toBe("");
    expect((await addGated(ws)).body.authorize?.url).toMatch(/\/authorize\?/);
  });

  it("a server that asks for OAuth but names nowhere to authorize is added with the reason, and its listing and calls say it", async () => {
    const { ws, room } = workspace();
    const res = await api(`/api/tools/${ws}/closed`, { method: "PUT", json: { url: `${AS}/closed`, userId: "U-admin" } });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { authorize?: unknown }).authorize).toEqual({ problem: "it asks for OAuth, and Duet cannot authorize with it: it asks for OAuth but publishes no protected-resource metadata" });
    expect((await listing(ws)).servers).toMatchObject([{ name: "closed", needsAuthorization: true, error: "it needs to be authorized; the person who added it gets the link with `/duet tools`" }]);
    expect((await api(`/api/rooms/${room}/tools/closed`, { method: "PUT", json: {} })).status).toBe(200);
    const turn = await send(room, `SAY: <tool name="closed.count">{}</tool> (${ws})`);
    expect(turn.body.runs).toMatchObject([{ exitCode: null, error: "tool server closed: it needs to be authorized, so the call was not made; the person who added it gets the link with `/duet tools`" }]);
  });

  it("a wrong, replayed, refused or expired state gets a plain page and stores no token", async () => {
    const { ws } = workspace();
    const { body } = await addGated(ws);
    const consent = await fetch(body.authorize!.url!, { redirect: "manual" });
    const callback = new URL(consent.headers.get("location")!);
    const state = callback.searchParams.get("state")!;
    expect(state.startsWith(`${ws}.`)).toBe(true);
    const visit = async (query: string) => {
      const res = await SELF.fetch(`https://duet.test/oauth/mcp/callback${query}`);
      return { status: res.status, page: await res.text(), type: res.headers.get("content-type") };
    };
    const forged = `${ws}.${"A".repeat(43)}`;
    const wrong = await visit(`?code=${callback.searchParams.get("code")}&state=${forged}`);
    expect(wrong).toMatchObject({ status: 400, type: "text/html; charset=utf-8" });
    expect(wrong.page).toContain("This authorization link was already used, has expired, or is not one Duet made. Nothing was stored");
    for (const query of ["", "?code=x", `?code=x&state=${encodeURIComponent("<script>alert(1)</script>")}`, `?code=x&state=${"a".repeat(5000)}`, `?code=x&state=bad%20ws.${"A".repeat(43)}`]) {
      const res = await visit(query);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(res.page).toContain("This link does not come from an authorization Duet started. Nothing was stored.");
      expect(res.page).not.toContain("<script>alert");
    }
    expect((await visit(`?state=${state}`)).page).toContain("The authorization server sent no usable code.");
    expect((await listing(ws)).servers[0].needsAuthorization).toBe(true);

    // The real state works once; the same return again finds nothing.
    const first = await SELF.fetch(callback.toString());
    expect(first.status).toBe(200);
    const replay = await SELF.fetch(callback.toString());
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain("already used");

    // Refused at the authorization server: the state is spent all the same.
    const other = workspace().ws;
    const refused = new URL((await fetch((await addGated(other)).body.authorize!.url!, { redirect: "manual" })).headers.get("location")!);
    const denied = await visit(`?error=access_denied&state=${refused.searchParams.get("state")}`);
    expect(denied.page).toContain("The authorization for gated was not given, so Duet cannot use it.");
    expect((await SELF.fetch(refused.toString())).status).toBe(400);
    expect((await listing(other)).servers[0].needsAuthorization).toBe(true);

    // A link past its time opens nothing.
    const late = workspace().ws;
    const lateLink = (await addGated(late)).body.authorize!.url!;
    const ns = (env as unknown as { TOOL_SERVERS: DurableObjectNamespace }).TOOL_SERVERS;
    await runInDurableObject(ns.get(ns.idFromName(late)), (_i, s) => void s.storage.sql.exec("UPDATE tool_oauth_pending SET expires_at = 1"));
    const expired = await click(lateLink);
    expect(expired.status).toBe(400);
    expect(expired.page).toContain("This authorization link has expired.");
    expect((await listing(late)).servers[0].needsAuthorization).toBe(true);
  });

  it("an access token that is running out is refreshed before the call, which carries the new one", async () => {
    const { ws, room } = workspace();
    await fetch(`${AS}/_expires?s=30`, { method: "POST" });
    try {
      const { body } = await addGated(ws);
      expect((await click(body.authorize!.url!)).status).toBe(200);
      await enable(room);
      const before = await fakeLog();
      const turn = await send(room, `SAY: <tool name="gated.count">{}</tool> (${ws})`);
      expect(turn.body.runs).toMatchObject([{ exitCode: 0, stdout: "there are 42 open issues" }]);
      const after = await fakeLog();
      const refreshes = after.grants.slice(before.grants.length).filter((g) => g.type === "refresh_token");
      expect(refreshes.length).toBeGreaterThanOrEqual(1);
      expect(refreshes.every((g) => g.ok)).toBe(true);
      // The call carried a token issued after the authorization's own.
      const newest = Math.max(...after.calls.map((c) => c.generation));
      expect(after.calls.at(-1)!.generation).toBe(newest);
      expect(newest).toBeGreaterThan(Math.max(0, ...before.calls.map((c) => c.generation)));
    } finally {
      await fetch(`${AS}/_expires?s=3600`, { method: "POST" });
    }
  });

  it("a call refused mid-way (the token revoked) gets a clear line, is not retried in a loop, and the adder's new link makes it work again", async () => {
    const { ws, room } = workspace();
    const { body } = await addGated(ws);
    expect((await click(body.authorize!.url!)).status).toBe(200);
    await enable(room);
    expect((await send(room, `SAY: <tool name="gated.count">{}</tool> (${ws}-ok)`)).body.runs).toMatchObject([{ exitCode: 0 }]);
    await fetch(`${AS}/_revoke`, { method: "POST" });
    const before = await fakeLog();

    const turn = await send(room, `SAY: Counting again. <tool name="gated.count">{}</tool> (${ws}-revoked)`);
    expect(turn.status).toBe(200);
    expect(turn.body.runs).toMatchObject([
      { cmd: "tool: gated.count {}", exitCode: null, error: "tool server gated: it needs to be authorized again, so the call was not made; the person who added it gets a new link with `/duet tools`" },
    ]);
    expect(turn.body.reply).toContain("Counting again.");
    expect(turn.body.reply).toContain("gated: it needs to be authorized again");
    const after = await fakeLog();
    // One request refused, one refresh tried (and refused), nothing tried again, and nothing reached the tool.
    expect(after.refused - before.refused).toBe(1);
    expect(after.grants.slice(before.grants.length)).toEqual([{ type: "refresh_token", ok: false, why: "unknown, used or revoked refresh token" }]);
    expect(after.calls).toHaveLength(before.calls.length);
    // The answer is kept like any other.
    expect((await history(room)).at(-1)!.text).toContain("gated: it needs to be authorized again");

    const relisted = await listing(ws, "U-admin");
    expect(relisted.servers[0]).toMatchObject({ needsAuthorization: true });
    expect(relisted.servers[0].authorizeUrl).not.toBe(body.authorize!.url);
    expect((await click(relisted.servers[0].authorizeUrl!)).status).toBe(200);
    expect((await send(room, `SAY: <tool name="gated.count">{}</tool> (${ws}-again)`)).body.runs).toMatchObject([{ exitCode: 0, stdout: "there are 42 open issues" }]);
  });
});
