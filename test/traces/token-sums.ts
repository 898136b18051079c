import type { WorkerClient, SpanData } from "@duet/shared";

/** Input and output tokens, summed. */
export interface TokenSums {
  input: number;
  output: number;
}

/** The tokens the model calls (`chat …` spans) among `spans` carry, as a backend would add them up. */
export function chatTokens(spans: SpanData[]): TokenSums {
  const chats = spans.filter((s) => s.name.startsWith("chat ") && s.attributes["gen_ai.operation.name"] === "chat");
  return {
    input: chats.reduce((n, c) => n + Number(c.attributes["gen_ai.usage.input_tokens"] ?? 0), 0),
    output: chats.reduce((n, c) => n + Number(c.attributes["gen_ai.usage.output_tokens"] ?? 0), 0),
  };
}

/** The tokens in the room's usage rows, every day and person, and how many turns they count. */
export async function usageTokens(client: Pick<WorkerClient, "usage">, room: string): Promise<TokenSums & { turns: number }> {
  const rows = (await client.usage(room)).days.flatMap((d) => d.rows);
  return {
    input: rows.reduce((n, r) => n + (r.inputTokens ?? 0), 0),
    output: rows.reduce((n, r) => n + (r.outputTokens ?? 0), 0),
    turns: rows.reduce((n, r) => n + r.turns, 0),
  };
}
