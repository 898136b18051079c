import { DuetError } from "@duet/shared";
import type { WorkerConfig } from "../config.ts";
import type { Vars } from "../vars.ts";
import { OpenAIChatModel } from "./openai-stream.ts";
import type { ChatModel } from "./types.ts";
import { WorkersAIChatModel } from "./workers-ai-stream.ts";

/**
 * The model offered as `name` (DUET_MODELS, MODEL), from the provider that
 * serves it: any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, llama.cpp's
 * server, AI Gateway) or Workers AI through the `AI` binding. Both stream; an
 * unusable configuration is refused in words an operator can act on.
 */
export function createLanguageModel(config: WorkerConfig, env: Vars, name = config.model): ChatModel {
  const served = config.offered.get(name);
  if (!served) throw new DuetError("model_not_configured", `The model "${name}" is not offered (DUET_MODELS)`);
  if (served.provider === "openai") {
    if (!config.OPENAI_BASE_URL) {
      throw new DuetError(
        "model_not_configured",
        `No model endpoint is configured for ${name}: set OPENAI_BASE_URL (e.g. http://127.0.0.1:11434/v1 for Ollama) or serve it with workers-ai`,
      );
    }
    return new OpenAIChatModel(config.OPENAI_BASE_URL, served.model, config.OPENAI_API_KEY, name);
  }
  if (!env.AI) {
    throw new DuetError(
      "model_not_configured",
      `${name} is served by workers-ai but the AI binding is missing: deploy with the production environment, or serve it with openai`,
    );
  }
  return new WorkersAIChatModel(env.AI, served.model, name);
}
