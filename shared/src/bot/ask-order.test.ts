import { describe, expect, it } from "vitest";
import { AskOrder, parseAskTicket } from "./ask-order.ts";

/** Every promise already settled has run its callbacks (a macrotask runs after all pending microtasks). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("AskOrder", () => {
  it("numbers each place and names the room's place before it while that one is not admitted", () => {
    const order = new AskOrder();
    const [a, b] = [order.take("room-1"), order.take("room-1")];
    const other = order.take("room-2");
    const ta = parseAskTicket(a.ticket)!;
    expect(ta.after).toBeUndefined();
    expect(parseAskTicket(b.ticket)).toEqual({ proc: ta.proc, seq: ta.seq + 1, after: ta.seq });
    expect(parseAskTicket(other.ticket)!.after).toBeUndefined();
    a.admitted();
    b.admitted();
  });

  it("sends a room's asks in the order they were placed, whatever order they got ready in, without waiting for admission", async () => {
    const order = new AskOrder(60_000);
    const sent: string[] = [];
    const places = ["a", "b", "c"].map((name) => ({ name, place: order.take("room-1") }));
    const other = order.take("room-2");
    for (const { name, place } of [...places].reverse().slice(0, 2)) void place.ready().then(() => sent.push(name));
    void other.ready().then(() => sent.push("other room"));
    await settle();
    // The first is not sent yet (it is still looking up names): the two after it wait; another room does not.
    expect(sent).toEqual(["other room"]);
    await places[0].place.ready();
    sent.push("a");
    await settle();
    // None of them was admitted: the line is the room's to keep.
    expect(sent).toEqual(["other room", "a", "b", "c"]);
    for (const { place } of places) place.admitted();
    other.admitted();
    await settle();
    expect(order.rooms).toBe(0);
  });

  it("lets the next ask go when the one before will never be sent (admitted without asking), or after its bound", async () => {
    const order = new AskOrder(20);
    const empty = order.take("room-1");
    const next = order.take("room-1");
    let sent = false;
    void next.ready().then(() => (sent = true));
    await settle();
    expect(sent).toBe(false);
    empty.admitted();
    await settle();
    expect(sent).toBe(true);
    order.take("room-2");
    await order.take("room-2").ready();
  });

  it("lets an answer show once the answers asked before it in the room showed or ended, and no sooner", async () => {
    const order = new AskOrder(60_000, 60_000);
    const [a, b, c] = [order.take("room-1"), order.take("room-1"), order.take("room-1")];
    const other = order.take("room-2");
    // The first in each room shows at once.
    expect(a.shownBefore()).toBeNull();
    expect(other.shownBefore()).toBeNull();
    const shown: string[] = [];
    void c.shownBefore()!.then(() => shown.push("c"));
    void b.shownBefore()!.then(() => shown.push("b"));
    // b ends without showing anything (an empty question): c still waits for a.
    b.ended();
    await settle();
    expect(shown).toEqual([]);
    a.shown();
    await settle();
    expect(shown).toEqual(["b", "c"]);
    c.ended();
    a.ended();
    other.ended();
    await settle();
    expect(order.unshown).toBe(0);
    expect(order.rooms).toBe(0);
  });

  it("lets the next answer show after its bound when the one before never does", async () => {
    const order = new AskOrder(60_000, 20);
    const stuck = order.take("room-1");
    const next = order.take("room-1");
    await next.shownBefore();
    stuck.ended();
    next.ended();
  });

  it("reads only well-formed tickets", () => {
    expect(parseAskTicket("p-1:3")).toEqual({ proc: "p-1", seq: 3 });
    expect(parseAskTicket("p-1:3:2")).toEqual({ proc: "p-1", seq: 3, after: 2 });
    for (const bad of ["", "p:", ":1", "p:x", "p:1:2:3", "p q:1", `${"p".repeat(65)}:1`]) expect(parseAskTicket(bad)).toBeNull();
  });
});
