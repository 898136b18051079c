import type { TokenUsage } from "./types.ts";

/**
 * A provider's own token counts, as OpenAI-compatible endpoints and Workers AI
 * both report them (`usage: {prompt_tokens, completion_tokens}`), or null when
 * the object holds none: a count Duet did not get is unknown, never zero.
 */
export function usageOf(event: unknown): TokenUsage | null {
  const usage = (event as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } } | null)?.usage;
  if (!usage || typeof usage !== "object") return null;
  const { prompt_tokens: input, completion_tokens: output } = usage;
  if (!isCount(input) || !isCount(output)) return null;
  return { inputTokens: input, outputTokens: output };
}

const isCount = (n: unknown): n is number => typeof n === "number" && Number.isInteger(n) && n >= 0;
