import { DurableObject } from "cloudflare:workers";
import { HISTORY_KEEP, MODEL_CONTEXT_MESSAGES, type DuetMessage } from "@duet/shared";
import { SYSTEM_PROMPT } from "../../worker/src/model/prompt.ts";

/**
 * The least a room can do and still answer as the seed's design and Duet do:
 * the same model request (system prompt, the last 10 messages, the question),
 * the same answer body (`{reply, messages}` with the last 50), the history in
 * memory, one table of turns whose oldest slot is reused. No commands, no
 * validation, no idempotency, no redaction, no agents SDK.
 *
 * COMMITS = "2" (the default) keeps what Duet keeps: the question is written
 * before the model is asked, so an eviction mid-turn cannot lose it, and the
 * answer after it: two commits a turn. COMMITS = "1" writes the turn once,
 * after the model answered, as the seed's design does (losing the question to
 * an eviction mid-turn). Side by side, the two show what that guarantee costs
 * on the platform itself, below any code of Duet's.
 */

export interface FloorEnv {
  FLOOR_ROOM: DurableObjectNamespace<FloorRoom>;
  OPENAI_BASE_URL?: string;
  MODEL?: string;
  COMMITS?: string;
}

/** The newest 25 answered turns are the 50 messages kept; one more slot holds the turn in flight. */
const SLOTS = HISTORY_KEEP / 2 + 1;

export class FloorRoom extends DurableObject<FloorEnv> {
  private readonly history: DuetMessage[] = [];
  private seq = 0;

  constructor(ctx: DurableObjectState, env: FloorEnv) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    sql.exec(`CREATE TABLE IF NOT EXISTS turns (slot INTEGER PRIMARY KEY, seq INTEGER, question TEXT, asked_at INTEGER, reply TEXT, answered_at INTEGER)`);
    for (const r of sql.exec<{ seq: number; question: string; asked_at: number; reply: string | null; answered_at: number | null }>(`SELECT * FROM turns ORDER BY seq`)) {
      this.seq = r.seq + 1;
      if (r.reply !== null) this.remember(r.question, r.asked_at, r.reply, r.answered_at ?? r.asked_at);
    }
  }

  async message(text: string): Promise<string> {
    const question = text.trim();
    const seq = this.seq++;
    const slot = seq % SLOTS;
    const askedAt = Date.now();
    const twoCommits = this.env.COMMITS !== "1";
    const sql = this.ctx.storage.sql;
    if (twoCommits) {
      sql.exec(`INSERT OR REPLACE INTO turns (slot, seq, question, asked_at, reply, answered_at) VALUES (?, ?, ?, ?, NULL, NULL)`, slot, seq, question, askedAt);
    }
    const reply = await this.complete([
      { role: "system", content: SYSTEM_PROMPT },
      ...this.history.slice(-MODEL_CONTEXT_MESSAGES).map((m) => ({ role: m.role === "agent" ? "assistant" : "user", content: m.text })),
      { role: "user", content: question },
    ]);
    const answeredAt = Date.now();
    if (twoCommits) sql.exec(`UPDATE turns SET reply = ?, answered_at = ? WHERE slot = ?`, reply, answeredAt, slot);
    else sql.exec(`INSERT OR REPLACE INTO turns (slot, seq, question, asked_at, reply, answered_at) VALUES (?, ?, ?, ?, ?, ?)`, slot, seq, question, askedAt, reply, answeredAt);
    this.remember(question, askedAt, reply, answeredAt);
    return JSON.stringify({ reply, messages: this.history });
  }

  private remember(question: string, askedAt: number, reply: string, answeredAt: number): void {
    this.history.push({ role: "user", text: question, ts: askedAt }, { role: "agent", text: reply, ts: answeredAt });
    if (this.history.length > HISTORY_KEEP) this.history.splice(0, this.history.length - HISTORY_KEEP);
  }

  private async complete(messages: { role: string; content: string }[]): Promise<string> {
    const res = await fetch(`${(this.env.OPENAI_BASE_URL ?? "").replace(/\/+$/, "")}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: this.env.MODEL, messages }),
    });
    const out = (await res.json()) as { choices?: { message?: { content?: unknown } }[] };
    const content = out.choices?.[0]?.message?.content;
    if (!res.ok || typeof content !== "string") throw new Error(`the model answered HTTP ${res.status}`);
    return content;
  }
}
