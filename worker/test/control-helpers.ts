import { runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";
import { api, execCalls, roomStub, send } from "./helpers.ts";

export type Pending = { id: string; cmd: string; expiresAt: number };

/** Puts `room` under `approve` and asks a turn whose model proposes `cmds` (asked by `by`): what it leaves waiting. */
export async function propose(room: string, cmds: string[], by = "U-asker"): Promise<Pending[]> {
  await api(`/api/rooms/${room}/policy`, { method: "PUT", json: { runPolicy: "approve", userId: "U-admin" } });
  const turn = await send(room, `SAY: proposing ${cmds.map((c) => `<run>${c}</run>`).join(" ")}`, { userId: by });
  expect(turn.status).toBe(200);
  expect(turn.body.runs).toEqual([]);
  return turn.body.pending;
}

/** Runs `fn` inside the room's Durable Object (the stub's type is too deep for tsc here, hence the cast). */
export const inRoom = runInDurableObject as unknown as (stub: DurableObjectStub, fn: (instance: any) => unknown) => Promise<unknown>;

/** Approvals written straight into the room's store with an injected clock (for expiry without waiting). */
export async function proposeAt(room: string, cmds: string[], now: number, ttlMs: number): Promise<Pending[]> {
  return (await inRoom(roomStub(room), (instance) => instance.room.control.approvals.propose(cmds, "U-asker", now, ttlMs))) as Pending[];
}

export async function decide(room: string, id: string, decision: "run" | "skip", userId: string) {
  const res = await api(`/api/rooms/${room}/approvals/${id}`, { method: "POST", json: { decision, userId } });
  return { status: res.status, body: (await res.json()) as any };
}

export async function audit(room: string): Promise<any[]> {
  const res = await api(`/api/rooms/${room}/audit`);
  expect(res.status).toBe(200);
  return ((await res.json()) as any).entries;
}

/** A direct run after everything else: once its command is in the executor's log, anything queued earlier would be too. */
export async function barrier(room: string): Promise<string[]> {
  const res = await api(`/api/rooms/${room}/sandbox/exec`, { method: "POST", json: { cmd: "echo barrier" } });
  expect(res.status).toBe(200);
  return (await execCalls(`sandbox-${room}`)).map((c) => c.command);
}
