import { describe, expect, it } from "vitest";
import { audit, decide, inRoom, propose, proposeAt } from "./control-helpers.ts";
import { api, execCalls, freshRoom, history, roomStub, send, until } from "./helpers.ts";
import { killedCommands, stop, unique } from "./live-helpers.ts";

const TOKEN = "xoxb-1234567890-1234567890-abcdefghijklmnopqrstuvwx";

/** The audit as stored, read without the room looking for expired approvals first (as GET /audit does). */
async function storedAudit(room: string): Promise<any[]> {
  return (await inRoom(roomStub(room), (instance) => instance.room.control.audit.entries())) as any[];
}

const rows = async (room: string) => ((await (await api(`/api/rooms/${room}/stats`)).json()) as { rowsWrittenSinceStart: number }).rowsWrittenSinceStart;

describe("an approval nobody decided in time", () => {
  it("is audited once when someone clicks it: who proposed it, the command redacted, when it expired", async () => {
    const room = freshRoom();
    const expiredAt = Date.now() - 5_000;
    const [late] = await proposeAt(room, [`curl -H "x: ${TOKEN}" example.com`], expiredAt - 5_000, 5_000);
    expect(await storedAudit(room)).toEqual([]);
    expect((await decide(room, late.id, "run", "U-clicker")).status).toBe(410);
    const entry = { at: expect.any(Number), kind: "expired", cmd: 'curl -H "x: xoxb-[redacted]" example.com', requestedBy: "U-asker", expiresAt: expiredAt };
    expect(await storedAudit(room)).toEqual([entry]);
    expect(JSON.stringify(await audit(room))).not.toContain(TOKEN);
    // Clicked again, listed again: still one entry.
    expect((await decide(room, late.id, "skip", "U-clicker")).status).toBe(410);
    expect(await audit(room)).toEqual([entry]);
    expect(await execCalls(`sandbox-${room}`)).toEqual([]);
  });

  it("is audited when the audit is listed, and when the next turn starts", async () => {
    const listed = freshRoom();
    await proposeAt(listed, ["echo listed"], Date.now() - 10_000, 5_000);
    expect(await audit(listed)).toEqual([expect.objectContaining({ kind: "expired", cmd: "echo listed", requestedBy: "U-asker" })]);

    const turned = freshRoom();
    await proposeAt(turned, ["echo by-turn", "echo by-turn-2"], Date.now() - 10_000, 5_000);
    await send(turned, "next turn");
    expect((await storedAudit(turned)).map((e) => `${e.kind} ${e.cmd}`)).toEqual(["expired echo by-turn", "expired echo by-turn-2"]);
  });

  it("costs one audit row and one row per expired approval, once; a turn while approvals still wait writes nothing more", async () => {
    const room = freshRoom();
    await propose(room, ["echo still-waiting"]);
    let before = await rows(room);
    await send(room, "a turn while one waits");
    expect((await rows(room)) - before).toBe(2);
    await proposeAt(room, ["echo a", "echo b"], Date.now() - 10_000, 5_000);
    before = await rows(room);
    await audit(room);
    expect((await rows(room)) - before).toBe(3);
    before = await rows(room);
    await audit(room);
    await send(room, "another turn");
    expect((await rows(room)) - before).toBe(2);
    // The approval still waiting is not audited as expired.
    expect((await audit(room)).filter((e) => e.kind === "expired").map((e) => e.cmd)).toEqual(["echo a", "echo b"]);
  });
});

describe("stopping the room while an approved command runs", () => {
  it("kills the command; its result and audit entry say it was stopped and by whom", async () => {
    const room = freshRoom();
    const slow = `sleep 30 # ${unique("approved-stop")}`;
    const [p] = await propose(room, [slow]);
    const decision = decide(room, p.id, "run", "U-approver");
    await until(async () => (await execCalls(`sandbox-${room}`)).length === 1, "the approved command to start");
    expect((await stop(room, "U-stopper")).body).toEqual({ stopped: true });
    const { status, body } = await decision;
    expect(status).toBe(200);
    expect(body.run).toMatchObject({ cmd: slow, exitCode: null, error: "stopped by U-stopper" });
    // The executor lists it once the killed process has gone (this test times out if it never goes).
    await until(async () => (await killedCommands()).includes(slow), "the command to be killed");
    const entries = await audit(room);
    expect(entries[entries.length - 1]).toEqual({
      at: expect.any(Number),
      kind: "approved",
      cmd: slow,
      requestedBy: "U-asker",
      decidedBy: "U-approver",
      exitCode: null,
      durationMs: expect.any(Number),
      stopped: true,
      stoppedBy: "U-stopper",
    });
    expect((await history(room)).slice(-1)[0].text).toBe(`Error (${slow}):\nstopped by U-stopper`);
    expect((await stop(room)).body).toEqual({ stopped: false });
  });
});
