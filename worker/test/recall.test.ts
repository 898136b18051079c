import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DEFAULT_RECALL_TOKENS } from "@duet/shared";
import { PINNED_LABEL, RECALL_LABEL, SHARED_FILES_LABEL } from "../src/model/prompt.ts";
import { CHUNK_TURNS, CHUNKS_SEARCHED, TurnArchive, type ArchivedTurn } from "../src/storage/turn-archive.ts";
import { api, freshRoom, roomStub, send } from "./helpers.ts";
import { ask, chatter, recalledBlock } from "./recall-helpers.ts";

/** A room's earlier turns, found again for a later question and shown to the model as labelled data. */


const turn = (seq: number, question: string, answer: string): ArchivedTurn => ({ seq, userId: "U1", userName: null, question, answer, at: seq, answeredAt: seq });

const tableRows = (room: string) =>
  runInDurableObject(roomStub(room), (_a, state) => {
    const sql = state.storage.sql;
    return sql.exec(`SELECT 1 FROM sqlite_master WHERE name = 'duet_recall'`).toArray().length ? Number(sql.exec(`SELECT count(*) AS n FROM duet_recall`).one().n) : 0;
  });

describe("recall", () => {
  it("the model is told which context is pinned and which recalled: each its own labelled message, pinned first, a recalled turn with who asked and when", async () => {
    const room = freshRoom("cli-recall");
    expect((await api(`/api/rooms/${room}/memory`, { method: "POST", json: { fact: "the kiwi service listens on 7070", userId: "U-bo", userName: "Bo" } })).status).toBe(200);
    await send(room, "SAY: noted: the walrus job runs at noon", { userId: "U-ada", userName: "Ada" });
    await chatter(room, 6);
    const call = await ask(room, "when does the walrus job run?");
    // Every context message under a label of its own (the window's messages say who spoke, in brackets too, but are no label).
    const labels = [PINNED_LABEL, RECALL_LABEL, SHARED_FILES_LABEL];
    const labelled = call.messages.filter((m) => m.role === "user" && labels.includes(m.content.split("\n")[0]));
    expect(labelled.map((m) => m.content.split("\n")[0])).toEqual([PINNED_LABEL, RECALL_LABEL]);
    expect(labelled[0].content).toMatch(/\n1\. the kiwi service listens on 7070 \(pinned by Bo on \d{4}-\d\d-\d\d\)$/);
    expect(labelled[0].content).not.toContain("walrus");
    expect(labelled[1].content).toMatch(/\nAda on \d{4}-\d\d-\d\d asked: SAY: noted: the walrus job runs at noon\nDuet answered: noted: the walrus job runs at noon$/);
    expect(labelled[1].content).not.toContain("kiwi");
  });

  it("shows nothing the model already sees: a turn still in the window is not recalled", async () => {
    const room = freshRoom("cli-recall");
    await send(room, "SAY: noted: the kiwi service listens on 7070");
    const call = await ask(room, "what does the kiwi service listen on?");
    expect(recalledBlock(call)).toBeUndefined();
    expect(JSON.stringify(call.messages)).toContain("kiwi service listens on 7070");
  });

  it("a question made of FTS syntax, quotes or 5,000 characters answers normally, and never recalls another room's turns", async () => {
    const room = freshRoom("cli-recall");
    const other = freshRoom("cli-recall");
    await send(other, "SAY: noted: the zebra secret lives in the other room");
    await send(room, "SAY: noted: the zebra crossing is on Main street");
    await chatter(room, 6);
    for (const hostile of ['"', '""zebra', "*", "zebra*", "NEAR(zebra main)", "question: zebra", "answer:zebra", ") OR (", "zebra) OR (secret", "^zebra", "{question answer}: zebra", "x".repeat(5_000), `${"zebra OR ".repeat(880)}`]) {
      const call = await ask(room, hostile);
      const block = recalledBlock(call) ?? "";
      expect(block).not.toContain("other room");
      expect(call.messages.at(-1)!.content).toContain(hostile.slice(0, 100));
    }
    expect(recalledBlock(await ask(room, "zebra"))).toContain("zebra crossing is on Main street");
  });

  it("the search quotes whatever terms it is given: FTS operators in them are words, never an SQL error", async () => {
    const found = await runInDurableObject(roomStub(freshRoom("cli-recall")), (_a, state) => {
      const archive = new TurnArchive(state.storage.sql, 1_000_000, () => []);
      // More chunks than a search reads, so the search goes through FTS5 and not only the turns kept in memory.
      for (let seq = 1; seq <= CHUNK_TURNS * (CHUNKS_SEARCHED + 1); seq++) archive.add(turn(seq, seq === 1 ? "where is NEAR the port" : `filler ${seq}`, seq === 1 ? "port 8443" : "ok"));
      const terms = ['"', "*", "NEAR(", "question:", "text:", ") OR (", 'a"b', "{text turns}:", "port", "x".repeat(100_000)];
      return terms.map((t) => archive.candidates([t], 1_000).filter((c) => c.question.includes("port")).length);
    });
    // "NEAR(" is the word near, which the turn holds; the rest are no words of it, or nothing at all.
    expect(found).toEqual([0, 0, 1, 0, 0, 0, 0, 0, 1, 0]);
  });

  it("the recalled block never exceeds DUET_RECALL_TOKENS, however many long turns match", async () => {
    const room = freshRoom("cli-recall");
    for (let i = 0; i < 8; i++) await send(room, `SAY: noted: kangaroo ${i} ${"hops far and wide ".repeat(120)}`);
    await chatter(room, 6);
    const block = recalledBlock(await ask(room, "tell me about the kangaroo"))!;
    expect(block).toContain("kangaroo");
    expect(block.length).toBeLessThanOrEqual(DEFAULT_RECALL_TOKENS * 4);
    expect(block.split("\nDuet answered:").length - 1).toBeGreaterThanOrEqual(2);
  });

  it("the room's deletion and a person's reset both wipe what it can recall", { timeout: 120_000 }, async () => {
    for (const reset of ["", "?userId=U1", "?userId=U1&keepMemory=1"]) {
      const room = freshRoom("cli-recall");
      await send(room, "SAY: noted: the walrus job runs at noon");
      await chatter(room, 6);
      expect(recalledBlock(await ask(room, "when does the walrus job run?"))).toContain("walrus job runs at noon");
      expect((await api(`/api/rooms/${room}${reset}`, { method: "DELETE" })).status).toBe(200);
      expect(await tableRows(room)).toBe(0);
      await chatter(room, 6);
      expect(recalledBlock(await ask(room, "when does the walrus job run?"))).toBeUndefined();
    }
  });

  it("after a reset, a question recalls the turns said since, never a wiped one, even once the archive's first chunk is written again", { timeout: 240_000 }, async () => {
    const room = freshRoom("cli-recall");
    // "is it?" holds only stop words: no search is made for it; the fake model answers "Echo: is it?".
    const fill = async (userName: string) => {
      for (let i = 0; i < CHUNK_TURNS + 5; i++) expect((await send(room, "is it?", { userId: "U1", userName })).status).toBe(200);
    };
    await fill("Old Person");
    expect(recalledBlock(await ask(room, "echo?"))).toContain("Old Person on ");
    expect((await api(`/api/rooms/${room}?userId=U1`, { method: "DELETE" })).status).toBe(200);
    await fill("New Person");
    const block = recalledBlock(await ask(room, "echo?"));
    expect(block).toContain("New Person on ");
    expect(block).not.toContain("Old Person");
  });

  it("recall costs no row of a turn's own: 2 rows a turn, and one row per 25 turns when a chunk of them is archived (2.04 a turn, amortised)", { timeout: 240_000 }, async () => {
    const room = freshRoom("cli-recall");
    const rows = async () => ((await (await api(`/api/rooms/${room}/stats`)).json()) as { rowsWrittenSinceStart: number }).rowsWrittenSinceStart;
    const costs: number[] = [];
    for (let i = 0; i < 2 * CHUNK_TURNS; i++) {
      const before = await rows();
      expect((await send(room, `SAY: turn ${i}`)).status).toBe(200);
      costs.push((await rows()) - before);
    }
    // The 25th turn fills the first chunk: its row, the FTS5 table made (2, as the meter counts it) and the chunk's row; the 50th its row and the chunk's.
    const landed = costs.map((c, i) => [i + 1, c]).filter(([, c]) => c !== 2);
    expect(landed).toEqual([[CHUNK_TURNS, 5], [2 * CHUNK_TURNS, 3]]);
    const amortised = (costs.reduce((a, b) => a + b, 0) - 2) / costs.length;
    console.log(`rows written per answered turn, amortised over ${costs.length} (table creation aside): ${amortised}`);
    expect(amortised).toBeLessThanOrEqual(2.04);
  });

  it("an archive small enough to be searched whole finds what its rows hold: a chunk dropped at the bound never, a new one at once, the same after a wake", async () => {
    const seen = await runInDurableObject(roomStub(freshRoom("cli-recall")), (_a, state) => {
      const seqsOf = (archive: TurnArchive) => archive.candidates(["q"], Number.MAX_SAFE_INTEGER).map((t) => t.seq).sort((a, b) => a - b);
      const archive = new TurnArchive(state.storage.sql, 4_000, () => []);
      const newest: number[] = [];
      for (let seq = 1; seq <= 6 * CHUNK_TURNS; seq++) {
        archive.add(turn(seq, `q${seq} ${"x".repeat(60)}`, "a"));
        // Searched as it grows, so what it keeps in memory is what later writes must keep in step.
        if (seq % CHUNK_TURNS === 0) newest.push(seqsOf(archive).at(-1)!);
      }
      const rows = state.storage.sql.exec<{ first_seq: number; last_seq: number }>(`SELECT first_seq, last_seq FROM duet_recall ORDER BY rowid`).toArray();
      const kept = rows.flatMap((r) => Array.from({ length: Number(r.last_seq) - Number(r.first_seq) + 1 }, (_, i) => Number(r.first_seq) + i));
      return { newest, kept, found: seqsOf(archive), woken: seqsOf(new TurnArchive(state.storage.sql, 4_000, () => [])) };
    });
    expect(seen.newest).toEqual([1, 2, 3, 4, 5, 6].map((n) => n * CHUNK_TURNS));
    expect(seen.kept[0]).toBeGreaterThan(1);
    expect(seen.found).toEqual(seen.kept);
    expect(seen.woken).toEqual(seen.kept);
  });

  it("past the byte bound the oldest chunks go first, the newest always kept", async () => {
    const bounded = await runInDurableObject(roomStub(freshRoom("cli-recall")), (_a, state) => {
      const archive = new TurnArchive(state.storage.sql, 4_000, () => []);
      for (let seq = 1; seq <= 6 * CHUNK_TURNS; seq++) archive.add(turn(seq, `q${seq} ${"x".repeat(60)}`, "a"));
      const kept = state.storage.sql.exec<{ first_seq: number }>(`SELECT first_seq FROM duet_recall ORDER BY rowid`).toArray().map((r) => Number(r.first_seq));
      return { kept, bytes: archive.bytes() };
    });
    expect(bounded.bytes).toBeLessThanOrEqual(4_000);
    expect(bounded.kept.at(-1)).toBe(5 * CHUNK_TURNS + 1);
    expect(bounded.kept.length).toBeGreaterThanOrEqual(1);
    expect(bounded.kept.length).toBeLessThan(6);
  });
});
