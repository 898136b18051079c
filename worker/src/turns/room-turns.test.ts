import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../config.ts";
import { RoomControl } from "../control/room-control.ts";
import type { ChatModel } from "../model/types.ts";
import type { Env } from "../room/duet-agent.ts";
import { TurnLedger } from "../storage/turn-ledger.ts";
import { RoomTurns } from "./room-turns.ts";
import { Outbox } from "../outbox/outbox.ts";
import type { TurnDeps } from "./run-turn.ts";

let n = 0;
function withStorage<T>(fn: (storage: DurableObjectStorage) => Promise<T>): Promise<T> {
  const ns = (env as unknown as Env).DUET_AGENT;
  const stub = ns.get(ns.idFromName(`turns-test-${Date.now()}-${n++}`));
  return runInDurableObject(stub, (_agent, state) => fn(state.storage));
}

/**
 * A model that answers each question with "A: <question>", streamed in two
 * pieces, and remembers the order it was asked in.
 */
function model(answer = (q: string) => `A: ${q}`): { asked: string[]; provider: ChatModel } {
  const asked: string[] = [];
  const provider: ChatModel = {
    name: "test-model",
    async *stream(messages) {
      const q = messages[messages.length - 1].content;
      asked.push(q);
      const text = answer(q);
      const half = Math.floor(text.length / 2);
      if (text) yield* [text.slice(0, half), text.slice(half)];
    },
  };
  return { asked, provider };
}

/** A room's turns on `storage`, as a fresh instance would build them after a wake. */
function roomTurns(storage: DurableObjectStorage, provider: ChatModel) {
  const config = loadConfig(env as unknown as Env);
  const ledger = new TurnLedger(storage);
  const alarms: number[] = [];
  const redact = (t: string) => t;
  const deps = (): TurnDeps => ({ roomId: "cli-turns-room", config, model: () => provider, executor: null, redact });
  const control = new RoomControl(storage, config, redact);
  const turns = new RoomTurns({
    roomId: "cli-turns-room",
    ledger,
    outbox: new Outbox(storage, "cli-turns-room", () => ({ announce: async () => undefined, settle: async () => undefined }), config.DUET_DELIVERY_GRACE_MS),
    ensureRegistered: async () => undefined,
    control,
    deps,
    atomically: (fn) => storage.transactionSync(fn),
    setAlarm: async (at) => void alarms.push(at),
  });
  return { ledger, turns, alarms };
}

describe("RoomTurns", () => {
  it("resumes turns a dead instance accepted, in arrival order, ahead of a new one; a retry joins its turn", async () => {
    await withStorage(async (storage) => {
      const before = roomTurns(storage, model().provider);
      // Accepted by an instance that died before answering.
      before.ledger.accept({ kind: "message", idemKey: "Ev1", userId: null, question: "first", receivedAt: Date.now() });
      before.ledger.accept({ kind: "message", idemKey: null, userId: null, question: "second", receivedAt: Date.now() });
      before.ledger.accept({ kind: "exec", idemKey: "Run1", userId: null, question: "rm -rf build", receivedAt: Date.now() });

      const m = model();
      const after = roomTurns(storage, m.provider);
      after.turns.recover();
      const retry = await after.turns.message({ text: "first", idempotencyKey: "Ev1" });
      const fresh = await after.turns.message({ text: "third" });
      expect(m.asked).toEqual(["first", "second", "third"]);
      expect(retry).toMatchObject({ status: 200, body: { reply: "A: first", replayed: true } });
      expect(fresh.body).toMatchObject({ reply: "A: third" });
      // The cut-off direct run is in the history in its place, with its outcome unknown.
      expect(after.ledger.history().map((x) => x.text)).toEqual([
        "first",
        "A: first",
        "Run: rm -rf build",
        expect.stringMatching(/^Error \(rm -rf build\):\noutcome unknown/),
        "second",
        "A: second",
        "third",
        "A: third",
      ]);
      // The direct run may have run: it is answered as unknown, never run again.
      expect(await after.turns.exec({ cmd: "rm -rf build", idempotencyKey: "Run1" })).toMatchObject({
        status: 200,
        body: { replayed: true, result: { exitCode: null, stderr: expect.stringMatching(/outcome unknown/) } },
      });
      // Busy, so the room armed its alarm once for all of it.
      expect(after.alarms).toHaveLength(1);
    });
  });

  it("a stored answer is replayed without asking the model again; a failed turn leaves no history", async () => {
    await withStorage(async (storage) => {
      const m = model();
      const { turns, ledger } = roomTurns(storage, m.provider);
      turns.recover();
      await turns.message({ text: "once", idempotencyKey: "Ev2" });
      expect(await turns.message({ text: "once", idempotencyKey: "Ev2" })).toMatchObject({ body: { reply: "A: once", replayed: true } });
      expect(m.asked).toEqual(["once"]);
      const broken = roomTurns(storage, model(() => "").provider);
      broken.turns.recover();
      expect((await broken.turns.message({ text: "empty answer" })).status).toBe(502);
      // Read from the rows, as the next instance would: nothing of the failed turn, in the history or pending.
      const woken = new TurnLedger(storage);
      expect(woken.history().map((m) => m.text)).toEqual(["once", "A: once"]);
      expect(woken.pending("message")).toEqual([]);
      expect(ledger.history()).toHaveLength(2);
    });
  });
});
