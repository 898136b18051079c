import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { HISTORY_KEEP, ROOM_QUEUE_MAX } from "@duet/shared";
import { api, deletedSessions, execCalls, freshRoom, history, modelCallsWith, send, until } from "./helpers.ts";
import { release, unique } from "./live-helpers.ts";

function roomStub(room: string): DurableObjectStub {
  const ns = (env as unknown as { DUET_AGENT: DurableObjectNamespace }).DUET_AGENT;
  return ns.get(ns.idFromName(room));
}

describe("rooms: exec, idempotency, cleanup cascade, admission", () => {
  it("runs a direct command with /sandbox/exec and names the sandbox", async () => {
    const room = freshRoom();
    const res = await api(`/api/rooms/${room}/sandbox/exec`, { method: "POST", json: { cmd: "echo direct; exit 4" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      result: { stdout: "direct\n", stderr: "", exitCode: 4, success: false, truncated: false, durationMs: expect.any(Number) },
      sandboxName: `sandbox-${room}`,
    });
    for (const bad of [{}, { cmd: "" }, { cmd: "   " }, { cmd: 5 }, { cmd: "x".repeat(8_001) }]) {
      const r = await api(`/api/rooms/${room}/sandbox/exec`, { method: "POST", json: bad });
      expect(r.status, JSON.stringify(bad).slice(0, 40)).toBe(400);
      expect(await r.json()).toMatchObject({ details: { cmd: [expect.any(String)] } });
    }
    const failing = await api(`/api/rooms/${room}/sandbox/exec`, { method: "POST", json: { cmd: "__EXECUTOR_FAIL__" } });
    expect(failing.status).toBe(502);
    expect(await failing.json()).toMatchObject({ code: "sandbox_error" });
  });

  it("replays a keyed direct run without running the command again", async () => {
    const room = freshRoom();
    const run = () => api(`/api/rooms/${room}/sandbox/exec`, { method: "POST", json: { cmd: "echo ran >> log; wc -l < log", idempotencyKey: "Int1" } });
    const first = (await (await run()).json()) as any;
    const again = (await (await run()).json()) as any;
    expect(first.result.stdout).toBe("1\n");
    expect(again).toEqual({ ...first, replayed: true });
    expect(await execCalls(`sandbox-${room}`)).toHaveLength(1);
    // The same key for a message is a different request.
    expect((await send(room, "hello", { idempotencyKey: "Int1" })).status).toBe(200);
  });

  it("replays an answered idempotency key without calling the model or running anything again", async () => {
    const room = freshRoom();
    const text = `SAY: once <run>echo ran-${room}</run>`;
    const first = await send(room, text, { idempotencyKey: "Ev123" });
    const again = await send(room, text, { idempotencyKey: "Ev123" });
    expect(again.status).toBe(200);
    expect(first.body.replayed).toBeUndefined();
    expect(again.body.replayed).toBe(true);
    expect(again.body.explanation).toBe("once");
    expect(again.body.reply).toBe(first.body.reply);
    expect(again.body.runs).toEqual(first.body.runs);
    expect(await modelCallsWith(`echo ran-${room}`)).toHaveLength(1);
    expect(await execCalls(`sandbox-${room}`)).toHaveLength(1);
    expect(await history(room)).toHaveLength(2);
  });

  it("concurrent duplicates of one key share one turn", async () => {
    const room = freshRoom();
    const text = `SLOW:200 SAY: dup <run>echo dup-${room}</run>`;
    const results = await Promise.all([1, 2, 3, 4].map(() => send(room, text, { idempotencyKey: "EvDup" })));
    for (const r of results) expect(r.body.reply).toBe(results[0].body.reply);
    expect(await modelCallsWith(`echo dup-${room}`)).toHaveLength(1);
    expect(await execCalls(`sandbox-${room}`)).toHaveLength(1);
    expect(await history(room)).toHaveLength(2);
  });

  it("concurrent duplicates of one key by a person with a budget (counted in another object) share one turn", async () => {
    const room = `slack-T1-${freshRoom("C").replace(/-/g, "")}`;
    const text = `SLOW:200 SAY: dup <run>echo dup-${room}</run>`;
    const results = await Promise.all([1, 2, 3, 4].map(() => send(room, text, { idempotencyKey: "EvDupPerson", userId: "U1" })));
    for (const r of results) expect(r.body.reply).toBe(results[0].body.reply);
    expect(await modelCallsWith(`echo dup-${room}`)).toHaveLength(1);
    expect(await history(room)).toHaveLength(2);
  });

  it("a failed turn's key can be retried and then succeeds once", async () => {
    const room = freshRoom();
    const failed = await send(room, "FAIL:503", { idempotencyKey: "EvRetry" });
    expect(failed.status).toBe(502);
    const ok = await send(room, "fine now", { idempotencyKey: "EvRetry2" });
    expect(ok.status).toBe(200);
    expect(await history(room)).toHaveLength(2);
  });

  it("deleting a channel room deletes its thread rooms: history and sandboxes; twice is fine", async () => {
    const channel = `slack-T1-${freshRoom("C").replace(/-/g, "")}`;
    const threadA = `${channel}-1700000000.000100`;
    const threadB = `${channel}-1700000000.000200`;
    await send(channel, "SAY: chan <run>echo c > f.txt</run>");
    await send(threadA, "SAY: a <run>echo a > f.txt</run>");
    await api(`/api/rooms/${threadB}/sandbox/exec`, { method: "POST", json: { cmd: "echo b > f.txt" } });
    expect(await history(threadA)).toHaveLength(2);

    const del = await api(`/api/rooms/${channel}`, { method: "DELETE" });
    expect(del.status).toBe(200);
    expect(await del.json()).toEqual({ cleaned: true, roomId: channel });
    for (const r of [channel, threadA, threadB]) {
      expect(await history(r), r).toEqual([]);
      expect(await deletedSessions()).toContain(`sandbox-${r}`);
    }
    const files = await api(`/api/rooms/${threadA}/sandbox/exec`, { method: "POST", json: { cmd: "cat f.txt 2>&1 || true" } });
    expect(((await files.json()) as any).result.stdout).toMatch(/No such file/);

    const again = await api(`/api/rooms/${channel}`, { method: "DELETE" });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ cleaned: true });
  });

  it("deleting a workspace room deletes every room of that workspace, threads of thread-only channels included", async () => {
    const team = `T${freshRoom("w").replace(/-/g, "")}`;
    const used = `slack-${team}-C1`;
    // C2 is only ever used through a thread room: it must still be found.
    const threadOnly = `slack-${team}-C2-1700000000.000300`;
    const other = `slack-${team}x-C1`;
    await send(used, "SAY: one <run>echo 1 > f.txt</run>");
    await send(threadOnly, "SAY: two <run>echo 2 > f.txt</run>");
    await send(other, "SAY: not this team");

    const del = await api(`/api/rooms/slack-${team}`, { method: "DELETE" });
    expect(del.status).toBe(200);
    for (const r of [used, threadOnly]) {
      expect(await history(r), r).toEqual([]);
      expect(await deletedSessions()).toContain(`sandbox-${r}`);
    }
    expect(await history(other)).toHaveLength(2);
    // A later message starts clean and joins the (new) tree again.
    await send(used, "SAY: back");
    await api(`/api/rooms/slack-${team}`, { method: "DELETE" });
    expect(await history(used)).toEqual([]);
  });

  it("a child room whose sandbox could not be destroyed stays listed, and the next DELETE finishes it", async () => {
    const channel = `slack-T1-${freshRoom("C").replace(/-/g, "")}`;
    const ok = `${channel}-1700000000.000100`;
    const stuck = `${channel}-FAILDELETE1`;
    await send(ok, "SAY: fine");
    await send(stuck, "SAY: stuck <run>echo s > f.txt</run>");

    const first = await api(`/api/rooms/${channel}`, { method: "DELETE" });
    expect(first.status).toBe(207);
    const body = (await first.json()) as { cleaned: boolean; errors: string[] };
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0]).toContain(stuck);
    // The history is gone either way; only the sandbox is still there.
    expect(await history(stuck)).toEqual([]);
    expect(await deletedSessions()).toContain(`sandbox-${ok}`);
    expect(await deletedSessions()).not.toContain(`sandbox-${stuck}`);

    const second = await api(`/api/rooms/${channel}`, { method: "DELETE" });
    expect(second.status).toBe(200);
    expect(await deletedSessions()).toContain(`sandbox-${stuck}`);
    const third = await api(`/api/rooms/${channel}`, { method: "DELETE" });
    expect(third.status).toBe(200);
    expect((await deletedSessions()).filter((s) => s === `sandbox-${stuck}`)).toHaveLength(1);
  });

  it("a message after DELETE starts a clean room", async () => {
    const room = freshRoom();
    await send(room, "old secret plan");
    await api(`/api/rooms/${room}`, { method: "DELETE" });
    const late = await send(room, "new start");
    expect(late.body.messages.map((m: { text: string }) => m.text)).toEqual(["new start", "Echo: new start"]);
    const calls = await modelCallsWith("new start");
    expect(JSON.stringify(calls[0].messages)).not.toContain("old secret plan");
  });

  it("answers 429 when more than ROOM_QUEUE_MAX turns wait in one room, and loses none it accepted", async () => {
    const room = freshRoom();
    // The first turn holds the room (its model answer waits for a release), so the line behind it fills
    // however fast or slow the machine is: ROOM_QUEUE_MAX wait, the last four are refused.
    const hold = unique("queue-hold");
    const first = send(room, `HOLD:${hold} SAY: first`);
    await until(async () => (await modelCallsWith(`HOLD:${hold}`)).length > 0, "the first turn to reach the model", 30_000);
    // Concurrent requests reach the room in no fixed order, so count refusals as they come back,
    // whichever sends they were; the held turn keeps every accepted one waiting meanwhile.
    let refusedSoFar = 0;
    const sends = Array.from({ length: ROOM_QUEUE_MAX + 4 }, (_, i) =>
      send(room, `SAY: q${i}`).then((r) => {
        if (r.status === 429) refusedSoFar++;
        return r;
      }),
    );
    await until(async () => refusedSoFar === 4, "four turns to be refused while the room is held", 30_000);
    await release(hold);
    const results = [await first, ...(await Promise.all(sends))];
    const ok = results.filter((r) => r.status === 200).length;
    const busy = results.filter((r) => r.status === 429);
    expect(busy).toHaveLength(4);
    expect(busy[0].body).toMatchObject({ code: "room_busy", retryable: true });
    expect(busy[0].body.retryAfterMs).toBeUndefined();
    // Each send is either answered or refused as busy; anything else is named with its body.
    expect(results.filter((r) => r.status !== 200 && r.status !== 429).map((r) => ({ status: r.status, body: r.body }))).toEqual([]);
    expect(ok + busy.length).toBe(ROOM_QUEUE_MAX + 5);
    // Every accepted turn wrote its pair; the room keeps the last HISTORY_KEEP messages of them.
    expect(await history(room)).toHaveLength(Math.min(ok * 2, HISTORY_KEEP));
  });
});

describe("storage cost", () => {
  it("writes 2 rows a turn, 1 more per command, 1 audit row for a turn's commands, 1 for a new room's registration", async () => {
    const channel = `slack-T1-${freshRoom("C").replace(/-/g, "")}`;
    const room = `${channel}-1700000000.000100`;
    const rows = async () => ((await (await api(`/api/rooms/${room}/stats`)).json()) as { rowsWrittenSinceStart: number; messages: number });
    const cost = async (turn: () => Promise<unknown>) => {
      const before = (await rows()).rowsWrittenSinceStart;
      await turn();
      return (await rows()).rowsWrittenSinceStart - before;
    };
    // The first turn also records the room under its channel (one row here; the channel's rows are its own).
    expect(await cost(() => send(room, "first"))).toBe(3);
    expect(await cost(() => send(room, "second", { idempotencyKey: "EvCost1" }))).toBe(2);
    for (let i = 0; i < 26; i++) await send(room, `m${i}`, i % 2 ? { idempotencyKey: `EvCostM${i}` } : {});
    expect((await rows()).messages).toBe(50);
    // At 50 messages the oldest turn's row is reused: still 2 rows, no DELETE.
    expect(await cost(() => send(room, "at fifty"))).toBe(2);
    expect(await cost(() => send(room, "keyed at fifty", { idempotencyKey: "EvCost2" }))).toBe(2);
    // A turn that runs commands adds one audit row for all of them. A direct run joins the history:
    // keyed, its row when accepted and its answer into it; unkeyed, that one row when it ends; each plus its audit row.
    expect(await cost(() => send(room, "SAY: one <run>echo one</run>"))).toBe(4);
    expect(await cost(() => send(room, "SAY: two <run>echo one</run> <run>echo two</run>"))).toBe(5);
    expect(await cost(() => api(`/api/rooms/${room}/sandbox/exec`, { method: "POST", json: { cmd: "echo k", idempotencyKey: "IntCost" } }))).toBe(3);
    expect(await cost(() => api(`/api/rooms/${room}/sandbox/exec`, { method: "POST", json: { cmd: "echo plain" } }))).toBe(2);
    expect(await history(room)).toHaveLength(50);
    // A replay writes nothing.
    expect(await cost(() => send(room, "second", { idempotencyKey: "EvCost1" }))).toBe(0);
  });
});

describe("secrets in direct runs", () => {
  it("runs a command carrying a Slack token as written and stores it redacted", async () => {
    const room = freshRoom();
    const token = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp";
    const header = `Authorization: Bearer ${token}`;
    const cmd = `printf '%s' "${header}" | wc -c`;
    const run = () => api(`/api/rooms/${room}/sandbox/exec`, { method: "POST", json: { cmd, idempotencyKey: "IntSecret" } });
    const first = (await (await run()).json()) as any;
    expect(first.result.stdout.trim()).toBe(String(header.length));
    expect((await execCalls(`sandbox-${room}`)).map((c) => c.command)).toEqual([cmd]);
    const stored = await runInDurableObject(roomStub(room), (_agent, state) =>
      state.storage.sql.exec<{ question: string }>(`SELECT question FROM duet_ledger`).toArray().map((r) => r.question),
    );
    expect(stored).toEqual([`Run: printf '%s' "Authorization: Bearer xoxb-[redacted]" | wc -c`]);
    expect(await (await run()).json()).toEqual({ ...first, replayed: true });
  });
});

describe("DELETE during a turn", () => {
  it("runs none of the turn's commands in the new, clean sandbox", async () => {
    const room = freshRoom();
    const hold = unique("delete-mid-turn");
    const turn = send(room, `HOLD:${hold} SAY: late <run>echo late > late.txt</run>`);
    // The model has the question (the turn is under way) and answers only once released, after the DELETE.
    await until(async () => (await modelCallsWith(hold)).length === 1, "the model to be asked");
    expect((await api(`/api/rooms/${room}`, { method: "DELETE" })).status).toBe(200);
    await release(hold);
    const answer = await turn;
    expect(answer.status).toBe(404);
    expect(await execCalls(`sandbox-${room}`)).toHaveLength(0);
    expect(await history(room)).toEqual([]);
  });
});
