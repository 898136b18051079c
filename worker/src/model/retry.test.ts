import { describe, expect, it } from "vitest";
import { MODEL_MAX_RETRIES, ModelRefusal, RETRY_AFTER_MAX_MS, retryDelayMs } from "./retry.ts";

const refusal = (status: number, headers: Record<string, string> = {}) => new ModelRefusal(status, headers);

describe("when to ask the model again", () => {
  const now = Date.parse("2026-12-01T12:00:00Z");

  it("waits what Retry-After asks: milliseconds, seconds or an HTTP date", () => {
    expect(retryDelayMs(refusal(429, { "retry-after-ms": "1500" }), 0, now)).toBe(1500);
    expect(retryDelayMs(refusal(429, { "retry-after": "2" }), 0, now)).toBe(2000);
    expect(retryDelayMs(refusal(503, { "retry-after": "Tue, 01 Dec 2026 12:00:03 GMT" }), 0, now)).toBe(3000);
  });

  it("backs off when the server says nothing, and gives up on long waits, spent retries and refusals a retry cannot fix", () => {
    expect([0, 1, 2].map((n) => retryDelayMs(refusal(500), n, now))).toEqual([500, 1000, 2000]);
    expect(retryDelayMs(refusal(500), MODEL_MAX_RETRIES, now)).toBeNull();
    expect(retryDelayMs(refusal(429, { "retry-after": String(RETRY_AFTER_MAX_MS / 1000 + 1) }), 0, now)).toBeNull();
    expect(retryDelayMs(refusal(400), 0, now)).toBeNull();
    expect(retryDelayMs(refusal(401), 0, now)).toBeNull();
    expect([408, 409, 502].map((status) => retryDelayMs(refusal(status), 0, now))).toEqual([500, 500, 500]);
    expect(retryDelayMs(new Error("socket hang up"), 0, now)).toBeNull();
  });
});
