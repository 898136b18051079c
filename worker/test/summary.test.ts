import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DEFAULT_SUMMARY_TOKENS, SUMMARY_USAGE_NAME } from "@duet/shared";
import { SUMMARY_LABEL } from "../src/model/prompt.ts";
import { SUMMARY_SYSTEM_PROMPT } from "../src/memory/summary-prompt.ts";
import { inRoom } from "./control-helpers.ts";
import { api, freshRoom, modelCallsWith, roomStub, send, until, type SeenModelCall } from "./helpers.ts";

/** A room's rolling summary: what fell out of the model's window, summarised by the room's own model and shown to it later. */

const FAKE_MODEL_URL = (env as unknown as Record<string, string>).FAKE_MODEL_URL;
/** About 420 characters: a filler turn (its question and its answer) is about 220 tokens. */
const PAD = "we went over the lunch plans and the weather again ".repeat(8);

interface SummaryCall extends SeenModelCall {
  model: string;
  usage?: { prompt_tokens: number; completion_tokens: number };
}

/** The summary requests the fake model saw for the room whose turns carry `tag`. */
async function summaryCalls(tag: string): Promise<SummaryCall[]> {
  const { calls } = (await (await fetch(`${FAKE_MODEL_URL}/_calls`)).json()) as { calls: SummaryCall[] };
  return calls.filter((c) => c.messages[0]?.content === SUMMARY_SYSTEM_PROMPT && c.messages.some((m) => m.content.includes(tag)));
}

/** Waits until no summary is being written in the room: a summary begun by the last answered turn has settled. */
const settled = (room: string) => inRoom(roomStub(room), (agent) => agent.room.rollingSummary.settled());

/** The room's summary row, or null when it has no summary table (or no row in it). */
async function summaryRow(room: string): Promise<{ text: string | null; through_seq: number; usage: string } | null> {
  return (await inRoom(roomStub(room), (agent) => {
    const sql = agent.ctx.storage.sql;
    if (!sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'duet_summary'`).toArray().length) return null;
    return sql.exec(`SELECT text, through_seq, usage FROM duet_summary`).toArray()[0] ?? null;
  })) as { text: string | null; through_seq: number; usage: string } | null;
}

const summaryBlock = (call: SeenModelCall) => call.messages.find((m) => m.role === "user" && m.content.startsWith(SUMMARY_LABEL))?.content;

/** Asks a question in `room` and answers the model's recorded prompt for it. */
async function ask(room: string, text = "what did we decide?"): Promise<SeenModelCall> {
  const marker = `ask-${Math.random().toString(36).slice(2, 10)}`;
  const res = await send(room, `SAY: ok ${marker} ${text}`);
  expect(res.status).toBe(200);
  const [call] = await modelCallsWith(marker);
  return call;
}

/**
 * A fact said first, then long filler turns until more than DUET_SUMMARY_TOKENS
 * (at 4 characters a token) lie before the model's window of 5 turns: the
 * turn that crosses it begins the summary. `script`: words for the fake's
 * summary answer (SUMFAIL:, SUMHOLD:), said with the fact.
 */
async function fillPastThreshold(room: string, tag: string, script = ""): Promise<void> {
  expect((await send(room, `SAY: noted: the walrus job runs at noon ${tag} ${script}`.trim(), { userId: "U-ada", userName: "Ada" })).status).toBe(200);
  const turns = Math.ceil((DEFAULT_SUMMARY_TOKENS * 4) / (2 * PAD.length)) + 5 + 1;
  for (let i = 0; i < turns; i++) expect((await send(room, `SAY: filler ${i} ${tag} ${PAD}`, { userId: "U-bo" })).status).toBe(200);
}

/** A new room past the threshold whose summary has been written: its id, its tag, and the summary request the fake saw. */
async function summarisedRoom(): Promise<{ room: string; tag: string; call: SummaryCall }> {
  const room = freshRoom("cli-summary");
  const tag = `tag-${room}`;
  await fillPastThreshold(room, tag);
  await settled(room);
  const [call] = await summaryCalls(tag);
  return { room, tag, call };
}

async function roomUsageRows(room: string): Promise<{ userId: string | null; userName?: string; model: string; inputTokens: number | null; outputTokens: number | null; turns: number }[]> {
  const res = await api(`/api/rooms/${room}/usage`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { days: { rows: never[] }[] }).days[0].rows;
}

describe("a room's rolling summary", () => {
  it("once enough history fell out of the window, the room's model summarises it, and later prompts hold the summary marked as one", async () => {
    const { room, tag, call } = await summarisedRoom();
    // Asked of the room's own model, whole; the turns it summarises under who asked them and when.
    expect(call.model).toBe("fake-model");
    expect(call.stream).toBe(false);
    expect(call.messages.map((m) => m.content).join("\n")).toMatch(new RegExp(`Ada on \\d{4}-\\d\\d-\\d\\d asked: SAY: noted: the walrus job runs at noon ${tag}`));
    const prompt = await ask(room);
    const block = summaryBlock(prompt)!;
    expect(block).toMatch(new RegExp(`^\\[a summary of this room's earlier conversation[^\\n]*\\]\\nSUMMARY of \\d+ turns: noted: the walrus job runs at noon ${tag}$`));
    // Right after the contract (no fact is pinned here), before the window's turns.
    expect(prompt.messages.findIndex((m) => m.content === block)).toBe(1);
    // The fact itself has left the window: only the summary (or recall) tells the model of it.
    expect(prompt.messages.filter((m) => m.content !== block).map((m) => m.content).join("\n")).not.toContain("walrus");
  });

  it("the summary call is counted in the room's usage, under the room summary, with the tokens the model reported", async () => {
    const { room, call } = await summarisedRoom();
    const rows = await roomUsageRows(room);
    expect(rows.find((r) => r.userName === SUMMARY_USAGE_NAME)).toEqual({
      userId: null,
      userName: SUMMARY_USAGE_NAME,
      model: "fake-model",
      inputTokens: call.usage!.prompt_tokens,
      outputTokens: call.usage!.completion_tokens,
      turns: 1,
      // The fake model has no price: tokens only.
      unpriced: 1,
    });
    // The people's own turns are counted apart from it.
    expect(rows.find((r) => r.userId === "U-bo")!.turns).toBeGreaterThan(10);
  });

  it("a summary call that fails or times out leaves every turn answered and writes nothing; the next turn tries again, and that summary is shown", async () => {
    for (const script of ["SUMFAIL", "SUMHANG"]) {
      const room = freshRoom("cli-summary");
      const tag = `tag-${room}`;
      await fillPastThreshold(room, tag, `${script}:${tag}`);
      await settled(room);
      expect((await summaryCalls(tag)).length).toBeGreaterThanOrEqual(1);
      expect(await summaryRow(room)).toBeNull();
      // The turn after the failure is answered as any other, without a summary.
      expect(summaryBlock(await ask(room))).toBeUndefined();
      if (script === "SUMFAIL") await fetch(`${FAKE_MODEL_URL}/_release/${tag}`, { method: "POST" });
      // That turn (or this one) tried again: it succeeds now.
      expect((await send(room, `SAY: one more ${tag}`)).status).toBe(200);
      await settled(room);
      expect(summaryBlock(await ask(room))).toContain(`noted: the walrus job runs at noon ${tag}`);
    }
  });

  it("a summary being written never delays a person's turn: the turn is answered while the summary call is still held", async () => {
    const room = freshRoom("cli-summary");
    const tag = `tag-${room}`;
    await fillPastThreshold(room, tag, `SUMHOLD:${tag}`);
    await until(async () => (await summaryCalls(tag)).length > 0, "the summary request");
    const turn = await send(room, `SAY: answered meanwhile ${tag}`);
    expect(turn.status).toBe(200);
    expect(turn.body.reply).toBe(`answered meanwhile ${tag}`);
    // Still held: nothing written yet, and the one request still the only one (none timed out and was asked again), so the turn did not wait for it.
    expect(await summaryRow(room)).toBeNull();
    expect(await summaryCalls(tag)).toHaveLength(1);
    await fetch(`${FAKE_MODEL_URL}/_release/${tag}`, { method: "POST" });
    await settled(room);
    expect(summaryBlock(await ask(room))).toContain(`noted: the walrus job runs at noon ${tag}`);
  });

  it("the room's deletion wipes the summary and its usage; a person's reset wipes the summary but keeps its usage, and keeps the summary too when they keep the memory", async () => {
    for (const [reset, kept] of [["", "nothing"], ["?userId=U1", "usage"], ["?userId=U1&keepMemory=1", "summary"]] as const) {
      const { room, tag } = await summarisedRoom();
      expect(summaryBlock(await ask(room))).toContain("walrus");
      expect((await api(`/api/rooms/${room}${reset}`, { method: "DELETE" })).status).toBe(200);
      const row = await summaryRow(room);
      const block = summaryBlock(await ask(room));
      const counted = (await roomUsageRows(room)).some((r) => r.userName === SUMMARY_USAGE_NAME);
      if (kept === "nothing") {
        expect(row).toBeNull();
        expect(block).toBeUndefined();
        expect(counted).toBe(false);
      } else if (kept === "usage") {
        expect(row).toMatchObject({ text: null, through_seq: 0 });
        expect(block).toBeUndefined();
        expect(counted).toBe(true);
      } else {
        expect(row).toMatchObject({ through_seq: 0 });
        expect(block).toContain(`noted: the walrus job runs at noon ${tag}`);
        expect(counted).toBe(true);
      }
    }
  });

  it("with DUET_SUMMARY_TOKENS=0 a room never asks for a summary and makes no summary table, however long its history", async () => {
    const room = freshRoom("cli-summary");
    const tag = `tag-${room}`;
    // This room's instance reads its configuration afresh with summaries off.
    await inRoom(roomStub(room), (agent) => {
      agent.env = { ...agent.env, DUET_SUMMARY_TOKENS: "0" };
      agent.parts = undefined;
    });
    await fillPastThreshold(room, tag);
    await fillPastThreshold(room, tag);
    // The barrier: a summary begun by any of those turns has settled by now.
    await settled(room);
    expect(await summaryCalls(tag)).toEqual([]);
    expect(await summaryRow(room)).toBeNull();
    expect(summaryBlock(await ask(room))).toBeUndefined();
  });
});
