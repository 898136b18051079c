import { DuetError } from "@duet/shared";
import type { WorkerConfig } from "../config.ts";
import type { Env } from "../env.ts";
import { OpenAIProvider } from "./openai.ts";
import type { ChatMessage, GenerationSettings, ModelProvider } from "./types.ts";
import { WorkersAIProvider } from "./workers-ai.ts";

export type { ChatMessage, GenerationSettings, ModelProvider };

export function createModelProvider(config: WorkerConfig, env: Env): ModelProvider {
  const generation: GenerationSettings = { maxTokens: config.MODEL_MAX_TOKENS, temperature: config.MODEL_TEMPERATURE };
  if (config.MODEL_PROVIDER === "openai") {
    if (!config.OPENAI_BASE_URL) {
      throw new DuetError(
        "model_not_configured",
        "No model is configured: set OPENAI_BASE_URL (e.g. http://127.0.0.1:11434/v1 for Ollama) or use MODEL_PROVIDER=workers-ai",
      );
    }
    return new OpenAIProvider(config.OPENAI_BASE_URL, config.model, generation, config.OPENAI_API_KEY);
  }
  if (!env.AI) {
    throw new DuetError(
      "model_not_configured",
      "MODEL_PROVIDER is workers-ai but the AI binding is missing: deploy with the production environment, or set MODEL_PROVIDER=openai",
    );
  }
  return new WorkersAIProvider(env.AI, config.model, generation);
}

/**
 * Runs one completion under a deadline. A timeout becomes 504 and any provider
 * failure 502, each worded for the person waiting in chat.
 */
export async function completeWithDeadline(provider: ModelProvider, messages: ChatMessage[], timeoutMs: number): Promise<string> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  try {
    const text = await Promise.race([
      provider.complete(messages, controller.signal),
      new Promise<never>((_, reject) => controller.signal.addEventListener("abort", () => reject(new Error("aborted")))),
    ]);
    if (!text.trim()) throw new DuetError("model_error", "the model returned an empty answer");
    return text;
  } catch (err) {
    if (timedOut) {
      throw new DuetError("model_timeout", `the model did not answer within ${Math.round(timeoutMs / 1000)} s`);
    }
    if (err instanceof DuetError) throw err;
    throw new DuetError("model_error", `the model request failed: ${(err as Error).message}`.slice(0, 300));
  } finally {
    clearTimeout(timer);
  }
}
