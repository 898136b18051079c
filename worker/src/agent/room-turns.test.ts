import { env, runInDurableObject } from "cloudflare:test";
import { simulateReadableStream, type LanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../config.ts";
import { RoomControl } from "../control/room-control.ts";
import type { Env } from "../env.ts";
import { RoomTree } from "./room-tree.ts";
import { RoomTurns } from "./room-turns.ts";
import type { TurnDeps } from "./turn.ts";
import { TurnLedger } from "./turn-ledger.ts";

let n = 0;
function withStorage<T>(fn: (storage: DurableObjectStorage) => Promise<T>): Promise<T> {
  const ns = (env as unknown as Env).DUET_AGENT;
  const stub = ns.get(ns.idFromName(`turns-test-${Date.now()}-${n++}`));
  return runInDurableObject(stub, (_agent, state) => fn(state.storage));
}

/**
 * A model that answers each question with "A: <question>", streamed in two
 * pieces, and remembers the order it was asked in (the AI SDK's own test model).
 */
function model(answer = (q: string) => `A: ${q}`): { asked: string[]; provider: LanguageModel } {
  const asked: string[] = [];
  const provider = new MockLanguageModelV3({
    doStream: async ({ prompt }) => {
      const last = prompt[prompt.length - 1].content;
      const q = typeof last === "string" ? last : last.map((p) => ("text" in p ? p.text : "")).join("");
      asked.push(q);
      const text = answer(q);
      const half = Math.floor(text.length / 2);
      return {
        stream: simulateReadableStream<LanguageModelV3StreamPart>({
          chunks: [
            { type: "text-start", id: "t" },
            ...(text ? [text.slice(0, half), text.slice(half)].map((delta) => ({ type: "text-delta" as const, id: "t", delta })) : []),
            { type: "text-end", id: "t" },
            { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: USAGE },
          ],
        }),
      };
    },
  });
  return { asked, provider };
}

/** What a model's stream carries (the provider spec's type, as the SDK's test model takes it). */
type LanguageModelV3StreamPart = Awaited<ReturnType<MockLanguageModelV3["doStream"]>>["stream"] extends ReadableStream<infer P> ? P : never;

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A room's turns on `storage`, as a fresh instance would build them after a wake. */
function roomTurns(storage: DurableObjectStorage, provider: LanguageModel) {
  const config = loadConfig(env as unknown as Env);
  const ledger = new TurnLedger(storage);
  const tree = new RoomTree(storage, "cli-turns-room", () => ({ registerChild: async () => undefined }));
  const alarms: number[] = [];
  const deps = (): TurnDeps => ({ roomId: "cli-turns-room", config, ledger, model: () => provider, executor: null, redact: (t) => t });
  const control = new RoomControl(storage, config);
  const turns = new RoomTurns({ roomId: "cli-turns-room", ledger, tree, control, deps, setAlarm: async (at) => void alarms.push(at) });
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
      expect(after.ledger.history().map((x) => x.text)).toEqual(["first", "A: first", "second", "A: second", "third", "A: third"]);
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
      expect(ledger.history()).toHaveLength(2);
      expect(ledger.pending("message")).toEqual([]);
    });
  });
});
