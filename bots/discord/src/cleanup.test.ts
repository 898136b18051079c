import { describe, expect, it } from "vitest";
import { WorkerClient } from "@duet/shared";
import { guildRoomToClean, RoomCleaner, roomToClean } from "./cleanup.ts";

describe("guildRoomToClean", () => {
  it("names the server's room when the bot left it, and nothing for an outage or a malformed packet", () => {
    expect(guildRoomToClean({ id: "111" })).toEqual({ room: "discord-111", reason: "removed from the server" });
    expect(guildRoomToClean({ id: "111", unavailable: false })).toEqual({ room: "discord-111", reason: "removed from the server" });
    expect(guildRoomToClean({ id: "111", unavailable: true })).toBeNull();
    expect(guildRoomToClean({})).toBeNull();
    expect(guildRoomToClean(undefined as never)).toBeNull();
  });
});

describe("roomToClean", () => {
  it("maps the raw packets to rooms", () => {
    expect(roomToClean("THREAD_UPDATE", { id: "3", guild_id: "1", parent_id: "2", type: 11, thread_metadata: { archived: true } })).toEqual({ room: "discord-1-2-3", reason: "thread archived" });
    expect(roomToClean("THREAD_DELETE", { id: "3", guild_id: "1", parent_id: "2", type: 11 })).toEqual({ room: "discord-1-2-3", reason: "thread deleted" });
    expect(roomToClean("CHANNEL_DELETE", { id: "2", guild_id: "1", type: 0 })).toEqual({ room: "discord-1-2", reason: "channel deleted" });
  });

  it("ignores what deletes no room", () => {
    expect(roomToClean("THREAD_UPDATE", { id: "3", guild_id: "1", parent_id: "2", type: 11, thread_metadata: { archived: false } })).toBeNull();
    expect(roomToClean("CHANNEL_DELETE", { id: "9", type: 1 })).toBeNull(); // a DM
    expect(roomToClean("THREAD_DELETE", { id: "3", guild_id: "1" })).toBeNull(); // no parent to name the room
  });
});

describe("RoomCleaner", () => {
  /** The real WorkerClient over a fetch that answers like the Worker and counts DELETEs. */
  function cleaner(status = 200) {
    const deletes: string[] = [];
    let now = 0;
    const fetchImpl = (async (url: string | URL | Request) => {
      deletes.push(new URL(String(url)).pathname);
      return new Response(JSON.stringify(status === 200 ? { cleaned: true } : { error: "boom", code: "internal" }), { status, headers: { "content-type": "application/json" } });
    }) as typeof fetch;
    const worker = new WorkerClient({ baseUrl: "http://worker.test", token: "t", fetch: fetchImpl, retries: 0 });
    const quiet = { info() {}, warn() {}, error() {} };
    return { c: new RoomCleaner(worker, quiet, () => now), deletes, advance: (ms: number) => (now += ms) };
  }

  it("cleans a room once however many events name it, until it is used again or time passes", async () => {
    const { c, deletes, advance } = cleaner();
    await Promise.all([c.clean("discord-1-2", "a"), c.clean("discord-1-2", "b")]);
    expect(deletes).toEqual(["/api/rooms/discord-1-2"]);
    c.forget("discord-1-2");
    await c.clean("discord-1-2", "again");
    expect(deletes).toHaveLength(2);
    advance(11 * 60_000);
    await c.clean("discord-1-2", "later");
    expect(deletes).toHaveLength(3);
  });

  it("tries again after a failure, and a forced clean reports it", async () => {
    const { c, deletes } = cleaner(500);
    expect(await c.clean("discord-1-2", "a")).toBeNull();
    expect(await c.clean("discord-1-2", "b")).toBeNull();
    expect(deletes).toHaveLength(2);
    await expect(c.clean("discord-1-2", "reset", { force: true })).rejects.toMatchObject({ code: "internal" });
  });
});
