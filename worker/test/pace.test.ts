import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { PaceSlots } from "../src/pace/pace-object.ts";
import { PACE_SHARED_MARGIN_MS } from "@duet/shared";
import { api } from "./helpers.ts";

let seq = 0;
/** A channel no other test uses. */
const freshChannel = () => `C${Date.now().toString(36).toUpperCase()}${(seq++).toString(36)}`;
/** A scope no other test uses. */
const freshScope = () => `slack-T${Date.now().toString(36).toUpperCase()}${(seq++).toString(36)}`;

const ask = (scope: string, json: unknown) => api(`/api/pace/${scope}`, { method: "POST", json });
const waitOf = async (scope: string, json: unknown) => ((await (await ask(scope, json)).json()) as { waitMs: number }).waitMs;
const stub = (name: string) => (env as unknown as { PACE_SLOTS: DurableObjectNamespace<PaceSlots> }).PACE_SLOTS.getByName(name);

describe("PaceSlots: a scope's channel slots", () => {
  it("hands one process's slots out an interval apart, first come first served, and a free channel at once", async () => {
    const waits = await runInDurableObject(stub(freshScope()), (o: PaceSlots) => [
      o.reserve(10_000, "C1", 1_000, "A"), // free: now
      o.reserve(10_000, "C1", 1_000, "A"), // right behind it: a second later
      o.reserve(10_200, "C1", 1_000, "A"), // 200 ms on: two seconds after the first, less the 200 ms
      o.reserve(10_200, "C2", 1_000, "A"), // another channel is free
      o.reserve(20_000, "C1", 1_000, "A"), // long after the last slot: free again
      o.reserve(20_500, "C1", 1_000, "A"), // half an interval after that one
    ]);
    expect(waits).toEqual([0, 1_000, 1_800, 0, 0, 500]);
  });

  it("a slot right after another process's is the shared margin later; after its own, not", async () => {
    const waits = await runInDurableObject(stub(freshScope()), (o: PaceSlots) => [
      o.reserve(0, "C1", 1_000, "A"),
      o.reserve(0, "C1", 1_000, "B"), // after A's: interval + margin
      o.reserve(0, "C1", 1_000, "B"), // after its own: the interval
      o.reserve(0, "C1", 5_000, "A"), // a slower interval (Discord at its steadiest), after B's: its own interval + margin
    ]);
    expect(waits).toEqual([0, 1_000 + PACE_SHARED_MARGIN_MS, 2_000 + PACE_SHARED_MARGIN_MS, 7_000 + 2 * PACE_SHARED_MARGIN_MS]);
  });

  it("a slot after another process's counts from that process's end once heard, never later than the margin allows", async () => {
    const seen = await runInDurableObject(stub(freshScope()), (o: PaceSlots) => {
      const waits = [o.reserve(0, "C1", 1_000, "A")];
      const endedA = o.ended(40, "C1", "A"); // A's message posted 40 ms into its slot
      waits.push(o.reserve(50, "C1", 1_000, "B")); // the interval after A's end: 1,040
      o.ended(1_400, "C1", "B"); // B's posted late, 360 ms into its slot
      waits.push(o.reserve(1_410, "C1", 1_000, "A")); // its end + interval (2,400) is past the margin's 2,290: the margin's
      waits.push(o.reserve(1_420, "C1", 1_000, "B")); // after A's slot, its end not heard: interval + margin after it
      return { waits, endedA, again: o.ended(60, "C1", "A"), unknown: o.ended(60, "C9", "A") };
    });
    expect(seen.waits).toEqual([0, 990, 2_290 - 1_410, 2_290 + 1_000 + PACE_SHARED_MARGIN_MS - 1_420]);
    // An end is heard once per slot; a channel or holder without a slot begun has none to end.
    expect([seen.endedA, seen.again, seen.unknown]).toEqual([true, false, false]);
  });

  it("a free channel's slot is a wait of 0 even when the clock moves on while it is taken, never a negative one", async () => {
    const wait = await runInDurableObject(stub(freshScope()), async (o: PaceSlots) => {
      const realNow = Date.now;
      let t = realNow();
      // A loaded runtime: each reading of the clock a millisecond after the one before.
      Date.now = () => t++;
      try {
        return await o.slot("C1", 1_000, "A");
      } finally {
        Date.now = realNow;
      }
    });
    expect(wait).toBe(0);
  });

  it("forgets channels whose last slot is long past once many are kept, and keeps the busy ones", async () => {
    const left = await runInDurableObject(stub(freshScope()), (o: PaceSlots) => {
      for (let i = 0; i < 300; i++) o.reserve(0, `old-${i}`, 1_000, "A");
      o.reserve(60_000, "busy", 1_000, "A");
      o.reserve(60_000, "busy", 1_000, "A");
      for (let i = 0; i < 300; i++) o.reserve(60_000, `new-${i}`, 1_000, "A");
      return { size: o.size, busy: o.reserve(60_000, "busy", 1_000, "A") };
    });
    expect(left.size).toBeLessThanOrEqual(301);
    expect(left.busy).toBe(2_000);
  });
});

describe("/api/pace", () => {
  it("ten callers at once in one channel get ten different slots, each an interval past the one before", async () => {
    const channel = freshChannel();
    const sent = Date.now();
    const waits = (await Promise.all(Array.from({ length: 10 }, () => waitOf("slack-T1", { channel, holder: "one-process" })))).sort((a, b) => a - b);
    // Each wait counts from its own call's arrival, all within `spread` of each other: slots a second apart less that.
    const spread = Date.now() - sent;
    expect(waits[0]).toBeLessThanOrEqual(spread);
    for (const [i, w] of waits.slice(1).entries()) {
      expect(w - waits[i]).toBeGreaterThanOrEqual(1_000 - spread);
      expect(w - waits[i]).toBeLessThanOrEqual(1_000);
    }
  });

  it("channels and scopes are separate: another channel, or the same id in another workspace, is free at once", async () => {
    const channel = freshChannel();
    expect(await waitOf("slack-T1", { channel })).toBe(0);
    expect(await waitOf("slack-T1", { channel })).toBeGreaterThan(0);
    expect(await waitOf("slack-T1", { channel: freshChannel() })).toBe(0);
    expect(await waitOf("slack-T2", { channel })).toBe(0);
  });

  it("an end is answered whether a slot heard it, and a malformed one is refused with 400", async () => {
    const channel = freshChannel();
    const scope = freshScope();
    const end = (json: unknown) => api(`/api/pace/${scope}/end`, { method: "POST", json });
    expect(await waitOf(scope, { channel, holder: "A" })).toBe(0);
    expect(await (await end({ channel, holder: "A" })).json()).toEqual({ ended: true });
    expect(await (await end({ channel, holder: "A" })).json()).toEqual({ ended: false });
    expect(await (await end({ channel: freshChannel(), holder: "A" })).json()).toEqual({ ended: false });
    for (const json of [{ channel }, { channel, holder: "" }, { channel: "", holder: "A" }, { channel, holder: "h".repeat(101) }]) {
      const res = await end(json);
      expect(res.status, JSON.stringify(json)).toBe(400);
    }
  });

  it("refuses a bad scope, an empty, oversized or hostile channel, a bad interval and malformed JSON with 400", async () => {
    const badScope = await ask("slack T1", { channel: "C1" });
    expect(badScope.status).toBe(400);
    expect(await badScope.json()).toMatchObject({ error: "invalid request", details: { scope: [expect.stringContaining("Scope")] } });
    for (const [json, field] of [
      [{}, "channel"],
      [{ channel: "   " }, "channel"],
      [{ channel: "C".repeat(201) }, "channel"],
      [{ channel: { $gt: "" } }, "channel"],
      [{ channel: "C1", intervalMs: -5 }, "intervalMs"],
      [{ channel: "C1", intervalMs: 60_000 }, "intervalMs"],
      [{ channel: "C1", intervalMs: 1.5 }, "intervalMs"],
      [{ channel: "C1", holder: "h".repeat(101) }, "holder"],
      [{ channel: "C1", holder: ["A"] }, "holder"],
    ] as const) {
      const res = await ask("slack-T1", json);
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(await res.json()).toMatchObject({ details: { [field]: [expect.any(String)] } });
    }
    const malformed = await api("/api/pace/slack-T1", { method: "POST", body: "channel=C1", headers: { "content-type": "application/json" } });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ details: { body: ["Body must be valid JSON (UTF-8)"] } });
    const huge = await api("/api/pace/slack-T1", { method: "POST", json: { channel: "C1", pad: "x".repeat(2 * 1024 * 1024) } });
    expect(huge.status).toBe(413);
    expect((await api("/api/pace/slack-T1")).status).toBe(405);
    expect((await api("/api/pace/slack-T1", { method: "POST", json: { channel: "C1" }, token: null })).status).toBe(401);
  });
});
