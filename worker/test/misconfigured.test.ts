import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../src/http/app.ts";
import { TOKEN } from "./helpers.ts";

/** One request to the Worker as configured here with some variables changed (a new env object is parsed afresh). */
async function ask(vars: Record<string, string>, path: string, init: RequestInit = {}) {
  const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
  const res = await app.request(path, { headers, ...init }, { ...(env as object), ...vars });
  return { status: res.status, text: await res.text() };
}

const REQUESTS: [string, RequestInit][] = [
  ["/health", {}],
  ["/api/info", {}],
  ["/api/rooms/demo/message", { method: "POST", body: JSON.stringify({ text: "SAY: hi", userId: "U1" }) }],
  ["/api/rooms/demo/usage", {}],
  ["/no/such/route", {}],
];

describe("a Worker whose model or budget settings are malformed", () => {
  it("answers every request with one line naming the budget that is not a number, never a stack trace", async () => {
    for (const [path, init] of REQUESTS) {
      const res = await ask({ DUET_ROOM_DAILY_TOKENS: "lots" }, path, init);
      expect([path, res.status]).toEqual([path, 503]);
      expect(JSON.parse(res.text)).toEqual({ error: "Worker misconfigured: DUET_ROOM_DAILY_TOKENS must be an integer from 1 to 1000000000000", code: "internal" });
    }
  });

  it("answers with the one line for a DUET_MODELS entry whose provider is unknown", async () => {
    const res = await ask({ DUET_MODELS: "fast=anthropic:claude-3" }, "/api/rooms/demo/model");
    expect(res.status).toBe(503);
    expect(JSON.parse(res.text).error).toBe('Worker misconfigured: DUET_MODELS has "fast=anthropic:claude-3": "anthropic" is not a provider (one of workers-ai, openai)');
  });

  it("answers every request with the one line for a price that does not parse, or a money budget that is not an amount", async () => {
    for (const [path, init] of REQUESTS) {
      const price = await ask({ DUET_MODELS: "strong=openai:gpt-4o@2.50/" }, path, init);
      expect([path, price.status]).toEqual([path, 503]);
      expect(JSON.parse(price.text)).toEqual({
        error: 'Worker misconfigured: DUET_MODELS has "strong=openai:gpt-4o@2.50/": the price must be @IN/OUT, US dollars per million input and output tokens from 0 to 10000 (e.g. @2.5/10)',
        code: "internal",
      });
      const budget = await ask({ DUET_USER_DAILY_USD: "five" }, path, init);
      expect([path, budget.status]).toEqual([path, 503]);
      expect(JSON.parse(budget.text).error).toMatch(/^Worker misconfigured: DUET_USER_DAILY_USD must be [^\n]+$/);
    }
  });
});
