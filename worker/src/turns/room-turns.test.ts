import { env, runInDurableObject } from "cloudflare:test";
import { DuetError } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../config.ts";
import type { Vars } from "../vars.ts";
import { RoomControl } from "../control/room-control.ts";
import type { ChatModel } from "../model/types.ts";
import { TurnLedger } from "../storage/turn-ledger.ts";
import { RoomTurns } from "./room-turns.ts";
import { Outbox } from "../outbox/outbox.ts";
import type { RoomParts } from "./room-parts.ts";
import type { TurnDeps } from "./run-turn.ts";

let n = 0;
function withStorage<T>(fn: (storage: DurableObjectStorage) => Promise<T>): Promise<T> {
  // Any room object lends its storage: the turns run on it without the room that would wire them.
  const ns = (env as unknown as { DUET_AGENT: DurableObjectNamespace }).DUET_AGENT;
  const stub = ns.get(ns.idFromName(`turns-test-${Date.now()}-${n++}`));
  return runInDurableObject(stub, (_agent, state) => fn(state.storage));
}

/**
 * A model that answers each question with "A: <question>", streamed in two
 * pieces, and remembers the order it was asked in. `onAsked` runs when a
 * question comes, and the answer waits for it.
 */
function model(answer = (q: string) => `A: ${q}`, onAsked = async (_q: string) => undefined): { asked: string[]; provider: ChatModel } {
  const asked: string[] = [];
  const provider: ChatModel = {
    name: "test-model",
    async *stream(messages) {
      const q = messages[messages.length - 1].content;
      asked.push(q);
      await onAsked(q);
      const text = answer(q);
      const half = Math.floor(text.length / 2);
      if (text) yield* [text.slice(0, half), text.slice(half)];
    },
  };
  return { asked, provider };
}

/** A room's turns on `storage`, as a fresh instance would build them after a wake. */
function roomTurns(storage: DurableObjectStorage, provider: ChatModel, budget: Pick<RoomParts, "overBudget" | "counted"> = {}) {
  const config = loadConfig(env as unknown as Vars);
  const ledger = new TurnLedger(storage);
  const alarms: number[] = [];
  const redact = (t: string) => t;
  const deps = (): TurnDeps => ({ roomId: "cli-turns-room", config, model: () => provider, executor: null, redact });
  const control = new RoomControl(storage, config, redact);
  const turns = new RoomTurns({
    roomId: "cli-turns-room",
    ledger,
    outbox: new Outbox(storage, "cli-turns-room", () => ({ announce: async () => undefined, settle: async () => undefined }), config.DUET_DELIVERY_GRACE_MS, config.DUET_DELIVERY_LEASE_MS),
    ensureRegistered: async () => undefined,
    control,
    deps,
    atomically: (fn) => storage.transactionSync(fn),
    setAlarm: async (at) => void alarms.push(at),
    ...budget,
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

  it("checks a person's budget once a turn, just before its model is asked: a turn that waited is checked against what the turn ahead spent", async () => {
    await withStorage(async (storage) => {
      // The first question's answer waits on `go`; the model says when it was asked.
      let go!: () => void;
      const held = new Promise<void>((r) => (go = r));
      let askedFirst!: () => void;
      const firstAsked = new Promise<void>((r) => (askedFirst = r));
      const { asked, provider } = model(undefined, async (q) => {
        if (!q.includes("first")) return;
        askedFirst();
        await held;
      });
      let spent = 0;
      const checks: string[] = [];
      const { turns } = roomTurns(storage, provider, {
        overBudget: async (userId) => {
          checks.push(String(userId));
          return spent > 0 ? new DuetError("over_budget", "used up") : null;
        },
        counted: async () => void spent++,
      });
      turns.recover();
      const first = turns.message({ text: "first", userId: "U1" });
      await firstAsked;
      // Queued behind the running turn: not checked yet, since what runs ahead of it may spend the budget.
      const second = turns.message({ text: "second", userId: "U1" });
      expect(checks).toEqual(["U1"]);
      go();
      expect((await first).status).toBe(200);
      expect(await second).toMatchObject({ status: 429, body: { code: "over_budget" } });
      // One check each, and the refused turn's model was never asked.
      expect(checks).toEqual(["U1", "U1"]);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain("first");
    });
  });
});
