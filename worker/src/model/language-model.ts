import { DuetError, MODEL_PROVIDERS, type ModelProviderName } from "@duet/shared";
import type { WorkerConfig } from "../config.ts";
import type { Vars } from "../vars.ts";
import { openAIModel } from "./openai-stream.ts";
import type { ChatModel } from "./types.ts";
import { workersAIModel } from "./workers-ai-stream.ts";

/**
 * A provider's module: makes the provider's `model` offered as `name`, or
 * throws `model_not_configured` in words an operator can act on when the
 * configuration lacks what the provider needs.
 */
export type ProviderModule = (model: string, name: string, config: WorkerConfig, env: Vars) => ChatModel;

/**
 * Each provider in MODEL_PROVIDERS (shared/src/settings/model-settings.ts) and its
 * module: any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, llama.cpp's
 * server, AI Gateway), or Workers AI through the `AI` binding. A provider is
 * added here and in that list, with its module beside these.
 */
export const PROVIDER_MODULES: Readonly<Record<ModelProviderName, ProviderModule>> = {
  "workers-ai": workersAIModel,
  openai: openAIModel,
};

/** The model offered as `name` (DUET_MODELS, MODEL), made by the module of the provider that serves it. */
export function createLanguageModel(config: WorkerConfig, env: Vars, name = config.model): ChatModel {
  const served = config.offered.get(name);
  if (!served) throw new DuetError("model_not_configured", `The model "${name}" is not offered (DUET_MODELS)`);
  const module = Object.hasOwn(PROVIDER_MODULES, served.provider) ? PROVIDER_MODULES[served.provider] : undefined;
  if (!module) throw new DuetError("model_not_configured", `No module serves the provider "${served.provider}" of ${name} (one of ${MODEL_PROVIDERS.join(", ")})`);
  return module(served.model, name, config, env);
}

/**
 * A room's models as its turns and summaries call them, made once per offered
 * model: a ChatModel holds only its endpoint and names, and making one per
 * turn (its URL parsed again) was a measurable share of a turn.
 */
export class ChatModels {
  private readonly made = new Map<string, ChatModel>();
  constructor(private readonly config: WorkerConfig, private readonly env: Vars) {}

  get(name: string): ChatModel {
    let model = this.made.get(name);
    if (!model) {
      model = createLanguageModel(this.config, this.env, name);
      this.made.set(name, model);
    }
    return model;
  }
}
