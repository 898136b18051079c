import { Agent } from "agents";
import { HISTORY_KEEP, MODEL_CONTEXT_MESSAGES, type DuetMessage } from "@duet/shared";
import { meterSql } from "../../worker/src/storage/sql-meter.ts";
import { SYSTEM_PROMPT } from "../../worker/src/model/prompt.ts";

/**
 * The seed's room design, rebuilt for measurement: one Agent per room whose
 * state is the whole message list, written back in full (`setState`) after
 * every message. The same system prompt and limits as Duet's Worker (the last
 * 10 messages as context, 50 kept); no commands, no idempotency, no queue.
 */

export interface SeedEnv {
  SEED_AGENT: DurableObjectNamespace<SeedAgent>;
  OPENAI_BASE_URL?: string;
  MODEL?: string;
}

interface SeedState {
  messages: DuetMessage[];
}

const json = (body: unknown, status = 200) => Response.json(body, { status });

export class SeedAgent extends Agent<SeedEnv, SeedState> {
  initialState: SeedState = { messages: [] };
  /** The same meter Duet's room has, so rows written are counted the same way on both sides. */
  private readonly meter = meterSql(this.ctx.storage);

  async onRequest(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (request.method === "POST" && path.endsWith("/message")) return this.message(request);
    if (request.method === "GET" && path.endsWith("/messages")) return json({ messages: this.state.messages });
    if (request.method === "GET" && path.endsWith("/stats")) {
      return json({ messages: this.state.messages.length, rowsWrittenSinceStart: this.meter.rowsWritten, bytesBoundSinceStart: this.meter.bytesBound });
    }
    return json({ error: "not found" }, 404);
  }

  private async message(request: Request): Promise<Response> {
    const body = (await request.json().catch(() => null)) as { text?: unknown; userId?: unknown } | null;
    if (typeof body?.text !== "string" || !body.text.trim()) return json({ error: "invalid request" }, 400);
    const question: DuetMessage = {
      role: "user",
      ...(typeof body.userId === "string" ? { userId: body.userId.trim() } : {}),
      text: body.text.trim(),
      ts: Date.now(),
    };
    const context = [
      { role: "system", content: SYSTEM_PROMPT },
      ...this.state.messages.slice(-MODEL_CONTEXT_MESSAGES).map((m) => ({ role: m.role === "agent" ? "assistant" : "user", content: m.text })),
      { role: "user", content: question.text },
    ];
    let text: string;
    try {
      text = await this.complete(context);
    } catch (err) {
      return json({ error: `model: ${(err as Error).message}` }, 502);
    }
    const answer: DuetMessage = { role: "agent", text, ts: Date.now() };
    const messages = [...this.state.messages, question, answer].slice(-HISTORY_KEEP);
    this.setState({ messages });
    return json({ reply: text, messages });
  }

  /** One OpenAI-compatible chat completion, as Duet's `openai` provider makes it. */
  private async complete(messages: { role: string; content: string }[]): Promise<string> {
    const res = await fetch(`${(this.env.OPENAI_BASE_URL ?? "").replace(/\/+$/, "")}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: this.env.MODEL, messages }),
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const out = (await res.json()) as { choices?: { message?: { content?: unknown } }[] };
    const content = out.choices?.[0]?.message?.content;
    if (typeof content !== "string") throw new Error("no message content");
    return content;
  }
}
