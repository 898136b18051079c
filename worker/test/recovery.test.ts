import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, execCalls, freshRoom, history, killRoom, modelCallsWith, roomStub, send, until } from "./helpers.ts";
import { release, unique } from "./live-helpers.ts";

describe("durable turns across a restart", () => {
  it("a turn interrupted while waiting on the model is answered once by the retry", async () => {
    const room = freshRoom();
    const hold = unique("recovery-model");
    const text = `HOLD:${hold} SAY: recovered-${room}`;
    const first = send(room, text, { idempotencyKey: "EvModel" }).catch((e) => e);
    await until(async () => (await modelCallsWith(`recovered-${room}`)).length === 1, "the model call");
    await killRoom(room);
    await first;
    await release(hold);
    const retry = await send(room, text, { idempotencyKey: "EvModel" });
    expect(retry.status).toBe(200);
    expect(retry.body.reply).toBe(`recovered-${room}`);
    expect((await history(room)).map((m) => m.role)).toEqual(["user", "agent"]);
    const again = await send(room, text, { idempotencyKey: "EvModel" });
    expect(again.body.reply).toBe(`recovered-${room}`);
    expect(await history(room)).toHaveLength(2);
  });

  it("a turn cut off with nobody left to retry is finished by the room's own alarm", async () => {
    const { room, text, marker } = await cutOffTurn("EvAlarm");
    // No request reaches the room from here on. The turn held a keep-alive alarm; firing
    // it (as the runtime does on its own) wakes a fresh instance that resumes the turn.
    expect(await runDurableObjectAlarm(roomStub(room))).toBe(true);
    await expectResumed(room, text, marker);
    // The bot's retry, however late, gets that answer: no third model call, no second turn.
    const late = await send(room, text, { idempotencyKey: "EvAlarm" });
    expect(late.body).toMatchObject({ reply: marker, replayed: true });
    expect(await modelCallsWith(marker)).toHaveLength(2);
    expect(await history(room)).toHaveLength(2);
  });

  it("an alarm that wakes the room by an id without its name (local workerd after a restart) still finishes its turn", async () => {
    const { room, text, marker } = await cutOffTurn("EvNameless");
    expect(await runDurableObjectAlarm(namelessStub(room))).toBe(true);
    // The history is read by name, from the instance the alarm woke.
    await expectResumed(room, text, marker);
  });

  it("an alarm on an instance that cannot tell which room it is is dropped, and the room answers its next request", async () => {
    const room = freshRoom();
    await send(room, "SAY: before the restart");
    // A room from before rooms stored their name: an alarm armed, no name kept.
    await runInDurableObject(roomStub(room), async (_instance, state) => {
      await state.storage.delete("__ps_name");
      await state.storage.setAlarm(Date.now() + 60_000);
    });
    await killRoom(room);
    // The runtime sees the instance reset (it cannot serve the alarm); the alarm is not retried.
    await runDurableObjectAlarm(namelessStub(room)).catch(() => undefined);
    expect(await runInDurableObject(roomStub(room), (_instance, state) => state.storage.getAlarm())).toBeNull();
    expect((await send(room, "SAY: after the restart")).body.reply).toBe("after the restart");
    expect((await history(room)).map((m) => m.text)).toEqual(["SAY: before the restart", "before the restart", "SAY: after the restart", "after the restart"]);
  });

  it("a command that was running when the room died is not run again; its outcome is reported unknown", async () => {
    const room = freshRoom();
    const text = "SAY: two <run>sleep 1; echo slow-done</run> <run>echo after</run>";
    const first = send(room, text, { idempotencyKey: "EvCmd" }).catch((e) => e);
    await until(async () => (await execCalls(`sandbox-${room}`)).length === 1, "the command to start");
    await killRoom(room);
    await first;
    const retry = await send(room, text, { idempotencyKey: "EvCmd" });
    expect(retry.status).toBe(200);
    expect(retry.body.runs).toMatchObject([
      { cmd: "sleep 1; echo slow-done", exitCode: null, error: expect.stringMatching(/outcome unknown/) },
      { cmd: "echo after", exitCode: 0, stdout: "after\n" },
    ]);
    expect(retry.body.reply).toContain("Error (sleep 1; echo slow-done):\noutcome unknown");
    // The interrupted command ran once (before the restart); the next one ran once after it.
    expect((await execCalls(`sandbox-${room}`)).map((c) => c.command)).toEqual(["sleep 1; echo slow-done", "echo after"]);
    const hist = await history(room);
    expect(hist).toHaveLength(2);
    expect(hist[1].text).toMatch(/outcome unknown/);
  });

  it("a keyed direct run cut off by a restart is reported unknown to its retry, never run twice", async () => {
    const room = freshRoom();
    const body = { cmd: "sleep 1; echo once >> log", idempotencyKey: "IntCut" };
    const first = api(`/api/rooms/${room}/sandbox/exec`, { method: "POST", json: body }).catch((e) => e);
    await until(async () => (await execCalls(`sandbox-${room}`)).length === 1, "the command to start");
    await killRoom(room);
    await first;
    const retry = await api(`/api/rooms/${room}/sandbox/exec`, { method: "POST", json: body });
    expect(retry.status).toBe(200);
    expect(((await retry.json()) as any).result).toMatchObject({ exitCode: null, success: false, stderr: expect.stringMatching(/outcome unknown/) });
    expect(await execCalls(`sandbox-${room}`)).toHaveLength(1);
  });
});

function agents(): DurableObjectNamespace {
  return (env as unknown as { DUET_AGENT: DurableObjectNamespace }).DUET_AGENT;
}

/** The room's object by its bare id, as a persisted alarm names it after a local restart. */
function namelessStub(room: string): DurableObjectStub {
  return agents().get(agents().idFromString(agents().idFromName(room).toString()));
}

/** A turn whose room died while the model was answering; nobody retries it. */
async function cutOffTurn(key: string): Promise<{ room: string; text: string; marker: string }> {
  const room = freshRoom();
  const marker = `alarm-${room}`;
  // The model holds its answer until the room is dead; the resumed call finds it released.
  const hold = unique(`recovery-${key}`);
  const text = `HOLD:${hold} SAY: ${marker}`;
  const first = send(room, text, { idempotencyKey: key }).catch((e) => e);
  await until(async () => (await modelCallsWith(marker)).length === 1, "the model call");
  await killRoom(room);
  await first;
  await release(hold);
  return { room, text, marker };
}

/** The cut-off turn was asked again and answered once, into the room's history. */
async function expectResumed(room: string, text: string, marker: string): Promise<void> {
  await until(async () => (await modelCallsWith(marker)).length === 2, "the resumed model call");
  await until(async () => (await history(room)).length === 2, "the resumed turn in the history");
  expect((await history(room)).map((m) => `${m.role}:${m.text}`)).toEqual([`user:${text}`, `agent:${marker}`]);
}
