import { describe, expect, it } from "vitest";
import { CLAIM_HEADER } from "@duet/shared";
import { api, freshRoom, history, killRoom, modelCallsWith } from "./helpers.ts";
import { release, stream, unique } from "./live-helpers.ts";

/**
 * A message may claim its idempotency key (CLAIM_HEADER): the room answers its
 * first claimant and refuses any other with `answered_elsewhere`, while the
 * first one's own retry follows the turn like any retry of its key.
 */

const claimed = (claimant: string) => ({ [CLAIM_HEADER]: claimant });

async function sendClaimed(room: string, text: string, key: string | undefined, claimant: string) {
  const res = await api(`/api/rooms/${room}/message`, { method: "POST", json: { text, ...(key ? { idempotencyKey: key } : {}) }, headers: claimed(claimant) });
  return { status: res.status, body: (await res.json()) as any };
}

describe("a message that claims its key", () => {
  it("a second delivery's claim, while the turn runs and once it is answered, is refused; the model is asked once", async () => {
    const room = freshRoom();
    const hold = unique("claim-running");
    const text = `HOLD:${hold} SAY: one answer`;
    const first = await stream(room, text, { idempotencyKey: `Ev-${hold}` }, claimed("replica-a"));
    expect(first.res.status).toBe(200);
    await first.next();
    while ((await modelCallsWith(hold)).length === 0) await scheduler.wait(20);
    // Another replica's delivery of the same event, streamed and whole: refused as JSON, nothing joined.
    const other = await api(`/api/rooms/${room}/message`, {
      method: "POST", json: { text, idempotencyKey: `Ev-${hold}` }, headers: { accept: "text/event-stream", ...claimed("replica-b") },
    });
    expect(other.status).toBe(409);
    expect(await other.json()).toMatchObject({ code: "answered_elsewhere" });
    const whole = await sendClaimed(room, text, `Ev-${hold}`, "replica-b");
    expect(whole.status).toBe(409);
    expect(whole.body).toMatchObject({ code: "answered_elsewhere", error: expect.stringContaining("another delivery") });
    await release(hold);
    const events = await first.rest();
    expect(events.at(-1)).toMatchObject({ event: "done", data: { explanation: "one answer" } });
    expect(await sendClaimed(room, text, `Ev-${hold}`, "replica-c")).toMatchObject({ status: 409, body: { code: "answered_elsewhere" } });
    expect(await modelCallsWith(hold)).toHaveLength(1);
    expect((await history(room)).map((m) => m.text)).toEqual([text, "one answer"]);
  });

  it("the first claimant's own retry (a lost connection) follows the running turn, and later gets the stored answer", async () => {
    const room = freshRoom();
    const hold = unique("claim-retry");
    // The first piece is two words: a piece's last word waits for the next piece, so one word alone would show nothing before the hold.
    const text = `HOLD:${hold} CHUNK:13 SAY: answered for its asker`;
    const first = await stream(room, text, { idempotencyKey: `Ev-${hold}` }, claimed("replica-a"));
    await first.until("text");
    void first.hangUp();
    const again = await stream(room, text, { idempotencyKey: `Ev-${hold}` }, claimed("replica-a"));
    expect(again.res.status).toBe(200);
    await release(hold);
    expect((await again.rest()).at(-1)).toMatchObject({ event: "done", data: { explanation: "answered for its asker", replayed: true } });
    expect(await sendClaimed(room, text, `Ev-${hold}`, "replica-a")).toMatchObject({ status: 200, body: { replayed: true } });
    expect((await history(room)).map((m) => m.text)).toEqual([text, "answered for its asker"]);
    // One turn: the retry followed it, it did not start another.
    expect(await modelCallsWith(hold)).toHaveLength(1);
  });

  it("the first claimant is kept with the turn: after an eviction its retry gets the stored answer, and another claimant is still refused", async () => {
    const room = freshRoom();
    const text = `SAY: kept ${unique("claim-evicted")}`;
    expect((await sendClaimed(room, text, "Ev-evicted", "replica-a")).status).toBe(200);
    await killRoom(room);
    expect(await sendClaimed(room, text, "Ev-evicted", "replica-b")).toMatchObject({ status: 409, body: { code: "answered_elsewhere" } });
    expect(await sendClaimed(room, text, "Ev-evicted", "replica-a")).toMatchObject({ status: 200, body: { replayed: true } });
    expect((await history(room)).map((m) => m.role)).toEqual(["user", "agent"]);
  });

  it("a request without the header claims nothing: a repeat of its key is replayed", async () => {
    const room = freshRoom();
    const text = `SAY: unclaimed ${unique("claim-none")}`;
    await sendClaimed(room, text, "Ev-plain", "replica-a");
    const plain = await api(`/api/rooms/${room}/message`, { method: "POST", json: { text, idempotencyKey: "Ev-plain" } });
    expect(plain.status).toBe(200);
    expect(await plain.json()).toMatchObject({ replayed: true });
  });

  it("refuses a malformed claimant, or a claim without an idempotency key, with 400 and the header named", async () => {
    const room = freshRoom();
    for (const bad of ["has space", "x".repeat(101), "émoji"]) {
      const res = await sendClaimed(room, "SAY: no", "Ev-bad", bad);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "invalid_request", details: { [CLAIM_HEADER]: [expect.stringContaining("characters")] } });
    }
    const keyless = await sendClaimed(room, "SAY: no", undefined, "replica-a");
    expect(keyless.status).toBe(400);
    expect(keyless.body).toMatchObject({ details: { [CLAIM_HEADER]: [expect.stringContaining("idempotency key")] } });
    expect(await history(room)).toEqual([]);
  });
});
