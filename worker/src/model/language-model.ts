import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import { createWorkersAI } from "workers-ai-provider";
import { DuetError } from "@duet/shared";
import type { WorkerConfig } from "../config.ts";
import type { Env } from "../env.ts";

/**
 * One model per environment and config (both live as long as the isolate).
 * Building a provider's model also builds its zod schemas, which zod compiles
 * on their first parse; built per turn, both were paid on every turn. A model
 * holds no per-request state, so turns share it.
 */
const models = new WeakMap<Env, WeakMap<WorkerConfig, LanguageModel>>();

/**
 * The configured model as an AI SDK model: any OpenAI-compatible endpoint
 * (OpenAI, Ollama, vLLM, llama.cpp's server, AI Gateway) or Workers AI through
 * the `AI` binding. Both stream; the SDK retries 429 and 5xx after Retry-After.
 */
export function createLanguageModel(config: WorkerConfig, env: Env): LanguageModel {
  let byConfig = models.get(env);
  if (!byConfig) models.set(env, (byConfig = new WeakMap()));
  let model = byConfig.get(config);
  if (!model) byConfig.set(config, (model = buildModel(config, env)));
  return model;
}

function buildModel(config: WorkerConfig, env: Env): LanguageModel {
  if (config.MODEL_PROVIDER === "openai") {
    if (!config.OPENAI_BASE_URL) {
      throw new DuetError(
        "model_not_configured",
        "No model is configured: set OPENAI_BASE_URL (e.g. http://127.0.0.1:11434/v1 for Ollama) or use MODEL_PROVIDER=workers-ai",
      );
    }
    return createOpenAICompatible({ name: "openai", baseURL: config.OPENAI_BASE_URL, apiKey: config.OPENAI_API_KEY, fetch: asEventStream })(config.model);
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

/**
 * The endpoint's answer as the SDK's stream reader needs it. A server that
 * ignores `stream: true` and sends one JSON completion gets it as a one-piece
 * event stream; a body that is neither is refused in words a person can act on
 * (the stream reader would only say the stream ended early).
 */
async function asEventStream(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const res = await fetch(input, init);
  if (!res.ok || (res.headers.get("content-type") ?? "").includes("text/event-stream")) return res;
  let content: unknown;
  try {
    content = (JSON.parse(await res.text()) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message?.content;
  } catch {
    throw new DuetError("model_error", "the model endpoint answered with something that is not JSON");
  }
  if (typeof content !== "string") throw new DuetError("model_error", "the model endpoint's answer has no message content");
  const piece = { choices: [{ index: 0, delta: { content }, finish_reason: "stop" }] };
  return new Response(`data: ${JSON.stringify(piece)}\n\ndata: [DONE]\n\n`, { status: 200, headers: { "content-type": "text/event-stream" } });
}
