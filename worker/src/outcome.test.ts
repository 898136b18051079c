import { ConfigError, DuetError } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { guard, guardWire, ok } from "./outcome.ts";

describe("guard", () => {
  it("passes an answer through", async () => {
    expect(await guard(async () => ok({ x: 1 }))).toEqual({ status: 200, body: { x: 1 } });
  });

  it("gives a DuetError its own status and body", async () => {
    const out = await guard(async () => {
      throw new DuetError("room_busy", "too many", { retryAfterMs: 2_000 });
    });
    expect(out).toEqual({ status: 429, body: { error: "too many", code: "room_busy", retryable: true, retryAfterMs: 2_000 } });
  });

  it("answers a config error with 503 and its message, anything else with a bare 500", async () => {
    expect(
      await guard(async () => {
        throw new ConfigError("Worker misconfigured: MODEL_TIMEOUT_MS must be an integer");
      }),
    ).toEqual({ status: 503, body: { error: "Worker misconfigured: MODEL_TIMEOUT_MS must be an integer", code: "internal" } });
    const crash = await guard(async () => {
      throw new TypeError("x is undefined at turn.ts:12");
    });
    expect(crash).toEqual({ status: 500, body: { error: "internal error", code: "internal" } });
  });
});

describe("guardWire", () => {
  it("sends the body as JSON, with the wait of a 429 beside it for Retry-After", async () => {
    expect(await guardWire(async () => ok({ reply: "hi", messages: [] }))).toEqual({ status: 200, json: '{"reply":"hi","messages":[]}' });
    const busy = await guardWire(async () => {
      throw new DuetError("room_busy", "too many", { retryAfterMs: 2_000 });
    });
    expect(busy).toEqual({ status: 429, json: expect.stringContaining('"code":"room_busy"'), retryAfterMs: 2_000 });
  });
});
