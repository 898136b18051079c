import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { TurnLedger } from "../src/storage/turn-ledger.ts";
import { api, freshRoom, killRoom, roomStub, send } from "./helpers.ts";

/** `GET /messages`: the last 50 as always, and `?before=` pages further back through everything the room kept. */

type Page = { messages: { role: string; text: string; userId?: string; ts: number }[]; before?: number };

async function page(room: string, before?: number | string): Promise<Page> {
  const res = await api(`/api/rooms/${room}/messages${before === undefined ? "" : `?before=${before}`}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Page;
}

/** Every page from the newest back, oldest message first. */
async function everything(room: string): Promise<Page["messages"]> {
  const pages: Page["messages"][] = [];
  let at = await page(room);
  pages.unshift(at.messages);
  for (let guard = 0; at.before !== undefined && guard < 20; guard++) {
    at = await page(room, at.before);
    pages.unshift(at.messages);
  }
  return pages.flat();
}

describe("GET /messages, paged with ?before=", () => {
  it("an empty room: no messages and nowhere further back, with or without a cursor: the answer it always gave", async () => {
    const room = freshRoom("cli-paging");
    expect(await page(room)).toEqual({ messages: [] });
    expect(await page(room, 1)).toEqual({ messages: [] });
  });

  it("a 60-turn room: the newest page is the last 50 messages, and the cursors walk back to the first, each message once, after a restart too", { timeout: 240_000 }, async () => {
    const room = freshRoom("cli-paging");
    for (let i = 1; i <= 60; i++) expect((await send(room, `SAY: said ${i}`, { userId: `U${i % 3}` })).status).toBe(200);
    const newest = await page(room);
    expect(newest.messages).toHaveLength(50);
    expect(newest.messages[0]).toMatchObject({ role: "user", text: "SAY: said 36" });
    expect(newest.messages.at(-1)).toMatchObject({ role: "agent", text: "said 60" });
    expect(typeof newest.before).toBe("number");
    const second = await page(room, newest.before!);
    expect(second.messages).toHaveLength(50);
    expect(second.messages[0]).toMatchObject({ role: "user", text: "SAY: said 11", userId: "U2" });
    expect(second.messages.at(-1)).toMatchObject({ role: "agent", text: "said 35" });
    const expected = Array.from({ length: 60 }, (_, i) => [`SAY: said ${i + 1}`, `said ${i + 1}`]).flat();
    expect((await everything(room)).map((m) => m.text)).toEqual(expected);
    // Evicted, the room reads back the turns not yet archived from its rows: the same pages.
    await killRoom(room);
    expect((await everything(room)).map((m) => m.text)).toEqual(expected);
    // A cursor just past the newest turn pages through the turns not yet archived too: the newest page again.
    expect((await page(room, newest.before! + 25)).messages).toEqual(newest.messages);
    // A cursor older than the first turn: nothing further back.
    expect(await page(room, 1)).toEqual({ messages: [] });
  });

  it("a room at its byte bound keeps its newest 50 messages whole and pages back through what it kept, oldest dropped first, with no gap", async () => {
    const kept = await runInDurableObject(roomStub(freshRoom("cli-paging")), (_a, state) => {
      // A bound about one chunk of these turns (25) fills: most of the 400 messages must go.
      const ledger = new TurnLedger(state.storage, 6_000);
      for (let i = 1; i <= 200; i++) {
        const turn = ledger.accept({ kind: "message", idemKey: null, userId: "U1", question: `said ${i} ${"x".repeat(60)}`, receivedAt: i }, i);
        ledger.answer(turn, { reply: `answer ${i}`, explanation: `answer ${i}`, runs: [] }, `answer ${i}`, i + 1);
      }
      const pages = [ledger.page()];
      while (pages[0].before !== undefined && pages.length < 20) pages.unshift(ledger.page(pages[0].before));
      return { newest: pages.at(-1)!.messages.map((m) => m.text), all: pages.flatMap((p) => p.messages.map((m) => m.text)) };
    });
    const said = (i: number) => [`said ${i} ${"x".repeat(60)}`, `answer ${i}`];
    expect(kept.newest).toEqual(Array.from({ length: 25 }, (_, i) => said(176 + i)).flat());
    const first = Number(/^said (\d+)/.exec(kept.all[0])![1]);
    // Something went, and what the bound holds is still there: at least a page further back than the newest.
    expect(first).toBeGreaterThan(1);
    expect(first).toBeLessThanOrEqual(151);
    expect(kept.all).toEqual(Array.from({ length: 201 - first }, (_, i) => said(first + i)).flat());
  });

  it("a cursor that is not a turn's number is refused with 400 and says what one looks like", async () => {
    const room = freshRoom("cli-paging");
    await send(room, "SAY: hello");
    for (const bad of ["", "0", "-1", "1.5", "1e3", "abc", "0x10", "%201", "12abc", "9007199254740992", "9".repeat(100_000)]) {
      const res = await api(`/api/rooms/${room}/messages?before=${bad}`);
      expect(res.status, `before=${bad.slice(0, 20)}`).toBe(400);
      const body = (await res.json()) as { code: string; details: { before: string[] } };
      expect(body.code).toBe("invalid_request");
      expect(body.details.before[0]).toMatch(/whole number from 1 to 9007199254740991/);
    }
  });
});
