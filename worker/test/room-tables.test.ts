import { describe, expect, it } from "vitest";
import { inRoom } from "./control-helpers.ts";
import { feedUntilItems } from "./feed-helpers.ts";
import { api, freshRoom, history, killRoom, roomStub, send } from "./helpers.ts";

/** The room's own tables (the agents SDK's left out), as sqlite_master lists them. */
async function tables(room: string): Promise<string[]> {
  const rows = (await inRoom(roomStub(room), (agent) =>
    agent.ctx.storage.sql.exec(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'duet_%' ORDER BY name`).toArray(),
  )) as { name: string }[];
  return rows.map((r) => r.name);
}

const rowsWritten = async (room: string) => ((await (await api(`/api/rooms/${room}/stats`)).json()) as { rowsWrittenSinceStart: number }).rowsWrittenSinceStart;

describe("a new room's tables", () => {
  it("a room that only talks makes no schedules, uploads or model table, even when they are read", async () => {
    const room = freshRoom("cli-tables");
    expect((await send(room, "SAY: just talking")).status).toBe(200);
    // Reads of what the room never wrote answer empty without making a table.
    expect(((await (await api(`/api/rooms/${room}/schedules`)).json()) as { schedules: unknown[] }).schedules).toEqual([]);
    expect(((await (await api(`/api/rooms/${room}/model`)).json()) as { source: string }).source).toBe("default");
    expect((await send(room, "SAY: still talking")).status).toBe(200);
    expect(await tables(room)).toEqual(["duet_approvals", "duet_audit", "duet_children", "duet_ledger", "duet_meta", "duet_policy"]);
  });

  it("a new room's first message writes 25 rows: the tables it uses, made whole, and its turn; woken again, only the turn", async () => {
    const room = freshRoom("cli-tables");
    expect((await send(room, "SAY: first")).status).toBe(200);
    // The agents SDK's tables (11 rows in sqlite_master), the room's six (2 each: the turn table made
    // with every column, none added by an ALTER, each of which would write one more) and the turn (2).
    expect(await rowsWritten(room)).toBe(25);
    // Woken again, the room finds its tables as they are: the turn's 2 rows and nothing else.
    await killRoom(room);
    expect((await send(room, "SAY: after a restart")).status).toBe(200);
    expect(await rowsWritten(room)).toBe(2);
  });

  it("the first schedule makes its table, and the run is asked and delivered", async () => {
    const room = freshRoom("cli-tables");
    expect((await send(room, "SAY: before any schedule")).status).toBe(200);
    const made = await api(`/api/rooms/${room}/schedules`, {
      method: "POST",
      json: { userId: "U-sched", target: { platform: "slack", place: { channel: "C-tables" } }, when: "every 1h", ask: `SAY: late-${room}` },
    });
    expect(made.status).toBe(200);
    const { id, nextRunAt } = ((await made.json()) as { schedule: { id: string; nextRunAt: number } }).schedule;
    expect(await tables(room)).toContain("duet_schedules");
    // A room woken again finds the table it made.
    await killRoom(room);
    await inRoom(roomStub(room), (agent) => agent.room.schedules.runDue(nextRunAt));
    const [item] = await feedUntilItems<{ roomId: string; question: string; deliver: { place: Record<string, string> } }>("slack", room);
    expect(item).toMatchObject({ question: `SAY: late-${room}`, deliver: { place: { channel: "C-tables", schedule: id } } });
    expect((await history(room)).map((m) => m.text)).toContain(`SAY: late-${room}`);
  });
});
