import { DuetError } from "@duet/shared";
import type { WorkerConfig } from "../config.ts";
import type { Vars } from "../vars.ts";
import { OpenAIChatModel } from "./openai-stream.ts";
import type { ChatModel } from "./types.ts";
import { WorkersAIChatModel } from "./workers-ai-stream.ts";

/**
 * The configured model: any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM,
 * llama.cpp's server, AI Gateway) or Workers AI through the `AI` binding. Both
 * stream; an unusable configuration is refused in words an operator can act on.
 */
export function createLanguageModel(config: WorkerConfig, env: Vars, model = config.model): ChatModel {
  if (config.MODEL_PROVIDER === "openai") {
    if (!config.OPENAI_BASE_URL) {
      throw new DuetError(
        "model_not_configured",
        "No model is configured: set OPENAI_BASE_URL (e.g. http://127.0.0.1:11434/v1 for Ollama) or use MODEL_PROVIDER=workers-ai",
      );
    }
    return new OpenAIChatModel(config.OPENAI_BASE_URL, model, config.OPENAI_API_KEY);
  }
  if (!env.AI) {
    throw new DuetError(
      "model_not_configured",
      "MODEL_PROVIDER is workers-ai but the AI binding is missing: deploy with the production environment, or set MODEL_PROVIDER=openai",
    );
  }
  return new WorkersAIChatModel(env.AI, model);
}
