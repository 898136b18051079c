import { describe, expect, it } from "vitest";
import { ASK_ORDER_HEADER, STREAM_EVENTS_HEADER } from "@duet/shared";
import { api, freshRoom, history, modelCallsWith } from "./helpers.ts";
import { release, stream, unique } from "./live-helpers.ts";

/**
 * A front end's asks carry their place (ASK_ORDER_HEADER): the room admits an
 * ask only once the ask it follows reached the room, so asks sent at once,
 * whose requests may overtake each other on the way, join the line in order.
 */

const placed = (value: string) => ({ [ASK_ORDER_HEADER]: value, [STREAM_EVENTS_HEADER]: "queued" });

describe("asks that carry their place in their front end's line", () => {
  it("an ask that reached the room before the one it follows waits for it, then joins the line behind it", async () => {
    const room = freshRoom();
    const hold = unique("ask-order");
    const proc = unique("proc");
    // The room is busy, so both asks wait in its line and are told their places.
    const first = await stream(room, `HOLD:${hold} CHUNK:8 SAY: held first`, { idempotencyKey: `k-${hold}-0` });
    await first.next();
    while ((await modelCallsWith(hold)).length === 0) await scheduler.wait(20);
    let secondAnswered = false;
    const second = stream(room, "SAY: asked second", { idempotencyKey: `k-${hold}-2` }, placed(`${proc}:2:1`)).then((s) => ((secondAnswered = true), s));
    // A request sent after it has been answered: the second ask reached the room and is still held back.
    expect((await api(`/api/rooms/${room}/messages`)).status).toBe(200);
    expect(secondAnswered).toBe(false);
    const one = await stream(room, "SAY: asked first", { idempotencyKey: `k-${hold}-1` }, placed(`${proc}:1`));
    const two = await second;
    expect(await one.until("queued")).toMatchObject({ data: { ahead: 1 } });
    expect(await two.until("queued")).toMatchObject({ data: { ahead: 2 } });
    await release(hold);
    await Promise.all([first.rest(), one.rest(), two.rest()]);
    expect((await history(room)).filter((m) => m.role === "user").map((m) => m.text)).toEqual([`HOLD:${hold} CHUNK:8 SAY: held first`, "SAY: asked first", "SAY: asked second"]);
  });

  it("refuses a malformed place with 400 and the header named", async () => {
    for (const bad of ["", "p", "p:x", "p:1:2:3", "p q:1"]) {
      const res = await api(`/api/rooms/${freshRoom()}/message`, { method: "POST", json: { text: "SAY: hi" }, headers: placed(bad) });
      expect(res.status, bad).toBe(400);
      expect(await res.json()).toMatchObject({ details: { [ASK_ORDER_HEADER]: [expect.stringContaining(ASK_ORDER_HEADER)] } });
    }
  });
});
