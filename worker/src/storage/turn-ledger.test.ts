import { env, runInDurableObject } from "cloudflare:test";
import { IDEMPOTENCY_TTL_MS } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { TurnLedger, type LedgerTurn } from "./turn-ledger.ts";

let n = 0;
/** A fresh room's storage, with nothing of the room's own code run in it. */
function withStorage<T>(fn: (storage: DurableObjectStorage) => T): Promise<T> {
  const ns = (env as unknown as { DUET_AGENT: DurableObjectNamespace }).DUET_AGENT;
  const stub = ns.get(ns.idFromName(`ledger-test-${Date.now()}-${n++}`));
  return runInDurableObject(stub, (_agent, state) => fn(state.storage));
}

const ask = (ledger: TurnLedger, question: string, idemKey: string | null = null, at = Date.now()): LedgerTurn =>
  ledger.accept({ kind: "message", idemKey, userId: "U1", question, receivedAt: at }, at);

const answer = (ledger: TurnLedger, turn: LedgerTurn, at = Date.now()) =>
  ledger.answer(turn, { reply: `re: ${turn.question}`, explanation: "x", runs: [] }, `<run>echo ${turn.question}</run>`, at);

const rowCount = (storage: DurableObjectStorage) => Number(storage.sql.exec(`SELECT COUNT(*) AS n FROM duet_ledger`).one().n);

describe("TurnLedger", () => {
  it("keeps a turn pending until answered, then shows it as two messages and as a turn with the model's text", async () => {
    await withStorage((storage) => {
      const ledger = new TurnLedger(storage);
      const turn = ask(ledger, "hello");
      expect(ledger.pending("message").map((t) => t.question)).toEqual(["hello"]);
      expect(ledger.history()).toEqual([]);
      ledger.markStarted(turn, '{"modelText":"m","runs":[],"running":0}');
      expect(ledger.pending("message")[0].progress).toBe('{"modelText":"m","runs":[],"running":0}');
      answer(ledger, turn, 5);
      expect(ledger.pending("message")).toEqual([]);
      expect(ledger.history()).toEqual([
        { role: "user", userId: "U1", text: "hello", ts: turn.receivedAt },
        { role: "agent", text: "re: hello", ts: 5 },
      ]);
      expect(ledger.recentTurns()).toMatchObject([{ question: "hello", reply: "re: hello", modelText: "<run>echo hello</run>", runs: [], seq: turn.seq }]);
    });
  });

  it("reuses the oldest row once a turn leaves the 50-message history, so the table stops growing", async () => {
    await withStorage((storage) => {
      const ledger = new TurnLedger(storage);
      for (let i = 0; i < 40; i++) answer(ledger, ask(ledger, `q${i}`));
      // 25 turns in the history, and the one whose row the next turn takes.
      expect(rowCount(storage)).toBe(26);
      const history = ledger.history();
      expect(history).toHaveLength(50);
      expect(history[0].text).toBe("q15");
      expect(history[49].text).toBe("re: q39");
      expect(ledger.messageCount()).toBe(50);
    });
  });

  it("gives the history as JSON equal to serialising it, as turns join and leave it and after a wake", async () => {
    await withStorage((storage) => {
      const ledger = new TurnLedger(storage);
      expect(ledger.historyJson()).toBe("[]");
      for (let i = 0; i < 30; i++) {
        const turn = ledger.accept({ kind: "message", idemKey: null, userId: i % 2 ? "U1" : null, question: `q"${i}\n`, receivedAt: i }, i);
        ledger.answer(turn, { reply: `re: ${i}`, explanation: "", runs: [], ...(i % 3 ? {} : { stopped: true }) }, "", i);
        expect(ledger.historyJson()).toBe(JSON.stringify(ledger.history()));
      }
      expect(JSON.parse(ledger.historyJson())).toHaveLength(50);
      const woken = new TurnLedger(storage);
      expect(woken.historyJson()).toBe(ledger.historyJson());
      woken.wipe();
      expect(woken.historyJson()).toBe("[]");
    });
  });

  it("keeps a keyed answer for replay through the TTL even after it left the history", async () => {
    await withStorage((storage) => {
      const ledger = new TurnLedger(storage);
      const t0 = Date.now();
      answer(ledger, ask(ledger, "keyed", "Ev1", t0), t0);
      for (let i = 0; i < 30; i++) answer(ledger, ask(ledger, `q${i}`, null, t0 + 1), t0 + 1);
      expect(ledger.answered("message", "Ev1", t0 + 2)).toMatchObject({ reply: "re: keyed" });
      expect(ledger.history().map((m) => m.text)).not.toContain("keyed");
      expect(rowCount(storage)).toBe(27);
      // Past the TTL the key is forgotten and its row is the next one reused.
      const late = t0 + IDEMPOTENCY_TTL_MS + 1;
      expect(ledger.answered("message", "Ev1", late)).toBeNull();
      ask(ledger, "later", null, late);
      expect(rowCount(storage)).toBe(27);
    });
  });

  it("frees a dropped turn's row for the next turn, keeps message and run keys apart, and shows a finished run", async () => {
    await withStorage((storage) => {
      const ledger = new TurnLedger(storage);
      const failed = ask(ledger, "fails", "Ev2");
      ledger.drop(failed);
      expect(ledger.pending("message")).toEqual([]);
      const next = ask(ledger, "next");
      expect(next.slot).toBe(failed.slot);
      expect(next.seq).toBeGreaterThan(failed.seq);
      const run = ledger.accept({ kind: "exec", idemKey: "Ev2", userId: null, question: "ls", receivedAt: Date.now() });
      const ran = { cmd: "ls", exitCode: 0, stdout: "a\n", stderr: "", truncated: false, durationMs: 1 };
      ledger.finishRun(run, { userId: null, question: "Run: ls", reply: "Output (ls):\na", runs: [ran], at: run.receivedAt }, 7);
      expect(ledger.answered("exec", "Ev2")).toEqual({ reply: "Output (ls):\na", explanation: "", runs: [ran] });
      expect(ledger.answered("message", "Ev2")).toBeNull();
      // The run joined the history, in memory and as a fresh instance reads it.
      const shown = [{ role: "user", text: "Run: ls", ts: run.receivedAt }, { role: "agent", text: "Output (ls):\na", ts: 7 }];
      expect(ledger.history()).toEqual(shown);
      expect(new TurnLedger(storage).history()).toEqual(shown);
    });
  });

  it("reads nothing back per turn: a turn's statements are its two writes, and what it keeps in memory matches its rows", async () => {
    await withStorage((storage) => {
      const ledger = new TurnLedger(storage);
      for (let i = 0; i < 30; i++) answer(ledger, ask(ledger, `q${i}`, i % 2 ? `Ev${i}` : null));
      ledger.history();
      ledger.recentTurns(5);
      const sql = storage.sql;
      const exec = sql.exec;
      const statements: string[] = [];
      sql.exec = ((query: string, ...params: SqlStorageValue[]) => {
        statements.push(query.trim().split(/\s+/)[0]);
        return exec.call(sql, query, ...params);
      }) as typeof sql.exec;
      try {
        const turn = ask(ledger, "counted", "Ev99");
        ledger.recentTurns(5);
        ledger.history();
        expect(ledger.answered("message", "Ev-unknown")).toBeNull();
        answer(ledger, turn);
        ledger.history();
      } finally {
        sql.exec = exec;
      }
      expect(statements).toEqual(["UPDATE", "UPDATE"]);
      // A fresh instance reads the same from the rows.
      const fresh = new TurnLedger(storage);
      expect(ledger.recentTurns(5)).toEqual(fresh.recentTurns(5));
      expect(ledger.recentTurns(3)).toEqual(fresh.recentTurns(3));
      expect(ledger.history()).toEqual(fresh.history());
      expect(ledger.answered("message", "Ev29")).toEqual(fresh.answered("message", "Ev29"));
    });
  });

  it("folds a room's older message rows into turn rows once", async () => {
    await withStorage((storage) => {
      storage.sql.exec(`CREATE TABLE duet_messages (id INTEGER PRIMARY KEY, role TEXT NOT NULL, user_id TEXT, text TEXT NOT NULL, ts INTEGER NOT NULL)`);
      storage.sql.exec(`CREATE TABLE duet_turns (id TEXT PRIMARY KEY)`);
      const rows: [string, string | null, string, number][] = [["user", "U1", "old q", 1], ["agent", null, "old a", 2], ["user", null, "q2", 3], ["agent", null, "a2", 4]];
      for (const r of rows) storage.sql.exec(`INSERT INTO duet_messages (role, user_id, text, ts) VALUES (?, ?, ?, ?)`, ...r);
      const ledger = new TurnLedger(storage);
      expect(ledger.history()).toEqual([
        { role: "user", userId: "U1", text: "old q", ts: 1 },
        { role: "agent", text: "old a", ts: 2 },
        { role: "user", text: "q2", ts: 3 },
        { role: "agent", text: "a2", ts: 4 },
      ]);
      expect(storage.sql.exec(`SELECT name FROM sqlite_master WHERE name IN ('duet_messages', 'duet_turns')`).toArray()).toEqual([]);
      expect(ask(ledger, "new").seq).toBe(3);
    });
  });

  it("keeps the usage of reused rows in a rollup a fresh instance reads back, a short array per day, person and model", async () => {
    await withStorage((storage) => {
      const ledger = new TurnLedger(storage);
      const now = Date.now();
      for (let i = 0; i < 40; i++) {
        const turn = ledger.accept({ kind: "message", idemKey: null, userId: `U${i % 2}`, question: `q${i}`, receivedAt: now }, now);
        ledger.answer(turn, { reply: "a", explanation: "a", runs: [], usage: { model: "fake-model", inputTokens: 10, outputTokens: 3 } }, "a", now);
      }
      const today = ledger.usageTotals(now).list(now);
      expect(today.map((e) => [e.userId, e.turns, e.inputTokens])).toEqual([["U0", 20, 200], ["U1", 20, 200]]);
      expect(new TurnLedger(storage).usageTotals(now).list(now)).toEqual(today);
      // The newest rollup holds the turns whose rows were reused, two entries of a few dozen bytes each.
      const carry = String(storage.sql.exec(`SELECT usage_carry FROM duet_ledger WHERE usage_carry IS NOT NULL ORDER BY seq DESC LIMIT 1`).one().usage_carry);
      expect(carry.length).toBeLessThan(120);
    });
  });

  it("reads a rollup stored with named fields, as rows written before the short form hold it", async () => {
    await withStorage((storage) => {
      const now = Date.now();
      const date = new Date(now).toISOString().slice(0, 10);
      const first = new TurnLedger(storage);
      first.answer(ask(first, "q", null, now), { reply: "a", explanation: "a", runs: [] }, "a", now);
      const entry = { date, userId: "U9", userName: "Old", model: "old-model", inputTokens: 7, outputTokens: 2, turns: 4, unreported: 1 };
      storage.sql.exec(`UPDATE duet_ledger SET usage_carry = ?`, JSON.stringify({ v: 3, entries: [entry] }));
      // Counted before prices existed: its reported turns are unpriced, and it cost nothing known.
      expect(new TurnLedger(storage).usageTotals(now).list(now)).toEqual([{ ...entry, costMicros: 0, unpriced: 3 }]);
    });
  });
});
