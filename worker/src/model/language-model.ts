import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import { createWorkersAI } from "workers-ai-provider";
import { DuetError } from "@duet/shared";
import type { WorkerConfig } from "../config.ts";
import type { Env } from "../env.ts";

/**
 * The configured model as an AI SDK model: any OpenAI-compatible endpoint
 * (OpenAI, Ollama, vLLM, llama.cpp's server, AI Gateway) or Workers AI through
 * the `AI` binding. Both stream; the SDK retries 429 and 5xx after Retry-After.
 */
export function createLanguageModel(config: WorkerConfig, env: Env): LanguageModel {
  if (config.MODEL_PROVIDER === "openai") {
    if (!config.OPENAI_BASE_URL) {
      throw new DuetError(
        "model_not_configured",
        "No model is configured: set OPENAI_BASE_URL (e.g. http://127.0.0.1:11434/v1 for Ollama) or use MODEL_PROVIDER=workers-ai",
      );
    }
    return createOpenAICompatible({ name: "openai", baseURL: config.OPENAI_BASE_URL, apiKey: config.OPENAI_API_KEY })(config.model);
  }
  if (!env.AI) {
    throw new DuetError(
      "model_not_configured",
      "MODEL_PROVIDER is workers-ai but the AI binding is missing: deploy with the production environment, or set MODEL_PROVIDER=openai",
    );
  }
  // Env types the binding loosely so local builds need no Workers AI types.
  return createWorkersAI({ binding: env.AI as never })(config.model as never);
}
