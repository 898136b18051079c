import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../src/http/app.ts";
import { allowedMethods } from "../src/http/methods.ts";
import { api, freshRoom } from "./helpers.ts";

// The routes are read from the app itself, so a route added tomorrow is checked
// here without this file changing: it gets the room check and the 405 for free.
const routes = allowedMethods(app);
const roomPaths = [...routes.keys()].filter((p) => p.startsWith("/api/rooms/:roomId"));

/** A concrete path for a route pattern: each parameter a value its own check accepts. */
function pathFor(pattern: string, roomId: string): string {
  const values: Record<string, string> = { roomId, approvalId: "a1b2c3d4", id: "abc123", platform: "slack", key: "T0123ABC", team: "T0456DEF", scope: "slack-T1", workspace: "cli-everyroute", name: "x" };
  return pattern.replace(/:(\w+)/g, (_, name: string) => values[name] ?? "x").replace(/\*$/, "notes/a.txt");
}

const BAD_ROOM_IDS = ["a%20b", "x".repeat(201), "%E2%80%8Broom", "..%2F..%2Fetc"];

describe("every route", () => {
  it("is read from the app: the room's routes are all there", () => {
    for (const path of ["/api/rooms/:roomId", "/api/rooms/:roomId/message", "/api/rooms/:roomId/policy", "/api/rooms/:roomId/files/*", "/api/rooms/:roomId/schedules/:id", "/api/rooms/:roomId/deliveries/hold", "/api/rooms/:roomId/asked/:key", "/api/rooms/:roomId/asked/:key/take"]) {
      expect(roomPaths).toContain(path);
    }
    expect(roomPaths.length).toBeGreaterThanOrEqual(16);
  });

  it("under /api/rooms/:roomId refuses a bad room id with the same 400, whatever the method and body", async () => {
    for (const pattern of roomPaths) {
      for (const method of routes.get(pattern)!.filter((m) => m !== "HEAD")) {
        for (const bad of BAD_ROOM_IDS) {
          const res = await api(pathFor(pattern, bad), { method, ...(method === "GET" || method === "HEAD" ? {} : { json: {} }) });
          expect(res.status, `${method} ${pattern} ${bad}`).toBe(400);
          expect(await res.json()).toEqual({
            error: "invalid request",
            code: "invalid_request",
            details: { roomId: ["Room id must be 1-200 characters of A-Z, a-z, 0-9, '.', '_' or '-'"] },
          });
        }
      }
    }
  });

  it("answers a method it does not take with 405 and an Allow header naming those it does", async () => {
    const room = freshRoom("every-route");
    let asked = 0;
    for (const [pattern, allowed] of routes) {
      for (const method of ["GET", "POST", "PUT", "DELETE", "PATCH"].filter((m) => !allowed.includes(m))) {
        const res = await api(pathFor(pattern, room), { method });
        expect(res.status, `${method} ${pattern}`).toBe(405);
        expect(res.headers.get("allow"), `${method} ${pattern}`).toBe(allowed.join(", "));
        expect(await res.json()).toEqual({ error: "method not allowed", code: "method_not_allowed" });
        asked++;
      }
    }
    expect(asked).toBeGreaterThan(routes.size);
    // `/files/*` answers the bare `/files` too (PUT there names no file: a 400 saying so).
    expect(routes.get("/api/rooms/:roomId/files/*")).toEqual(["GET", "HEAD", "PUT"]);
    expect(routes.get("/api/rooms/:roomId/files")).toEqual(["GET", "HEAD", "PUT"]);
    // The room was never woken: nothing it answers was written.
    expect(await (await api(`/api/rooms/${room}/messages`)).json()).toEqual({ messages: [] });
  });

  it("the tool servers' OAuth callback, reached by browsers without a token, answers hostile input with a plain 400 page, never a 500", async () => {
    const hostile = ["", "?state=", "?code=&state=", `?state=${"x".repeat(100_000)}&code=c`, "?state=%E2%80%8B.%00&code=c", "?state=a&state=b&code=c", `?state=cli-x.${"A".repeat(43)}&code=${"c".repeat(3000)}`, "?state=%ZZ&code=%ZZ", "?error=access_denied", `?state=bad%20ws.${"A".repeat(43)}&code=c`, `?state=slack-T1-C2.${"A".repeat(43)}&code=c`];
    for (const query of hostile) {
      const res = await SELF.fetch(`https://duet.test/oauth/mcp/callback${query}`);
      expect({ query: query.slice(0, 40), status: res.status }).toEqual({ query: query.slice(0, 40), status: 400 });
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(await res.text()).toContain("Nothing was stored.");
    }
    // A listing's viewer is checked like any query.
    for (const query of [`?userId=${"u".repeat(129)}`, "?userId=", "?other=1"]) {
      const res = await api(`/api/tools/cli-everyroute${query}`);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(await res.json()).toMatchObject({ code: "invalid_request", details: { query: [expect.any(String)] } });
    }
  });
});
