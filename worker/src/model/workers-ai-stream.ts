import { DuetError } from "@duet/shared";
import type { WorkerConfig } from "../config.ts";
import type { Vars } from "../vars.ts";
import { ModelRefusal } from "./retry.ts";
import { parseEvent, sseData } from "./sse-data.ts";
import type { ChatMessage, ChatModel, ModelRequest } from "./types.ts";
import { usageOf } from "./usage.ts";

/** The `AI` binding as used here (Env types it loosely so local builds need no Workers AI types). */
export interface AiBinding {
  run(model: string, input: unknown, options?: unknown): Promise<unknown>;
}

/**
 * The `workers-ai` provider's module: `model` (`@cf/...`) offered as `name`,
 * through the `AI` binding; refused in words an operator can act on when the binding is missing.
 */
export function workersAIModel(model: string, name: string, _config: WorkerConfig, env: Vars): ChatModel {
  if (!env.AI) {
    throw new DuetError(
      "model_not_configured",
      `${name} is served by workers-ai but the AI binding is missing: deploy with the production environment, or serve it with openai`,
    );
  }
  return new WorkersAIChatModel(env.AI, model, name);
}

/**
 * Workers AI through the `AI` binding: with `stream: true` it answers an SSE
 * stream of `data: {"response": "..."}` events ending in `data: [DONE]`;
 * without, one object with the whole `response`. Either way its `usage`
 * (the last event's, or the object's) gives the token counts.
 */
export class WorkersAIChatModel implements ChatModel {
  readonly endpoint = "Workers AI";

  constructor(
    private readonly ai: AiBinding,
    /** Workers AI's own name for the model (`@cf/...`). */
    private readonly model: string,
    readonly name = model,
  ) {}

  async *stream(messages: ChatMessage[], request: ModelRequest): AsyncGenerator<string, void> {
    let answer: unknown;
    try {
      const input = { messages, stream: request.stream, max_tokens: request.maxTokens, temperature: request.temperature };
      answer = await this.ai.run(this.model, input, { signal: request.signal });
    } catch (err) {
      throw bindingError(err);
    }
    if (answer instanceof ReadableStream) {
      for await (const data of sseData(answer as ReadableStream<Uint8Array>)) {
        const event = parseEvent(data);
        const usage = usageOf(event);
        if (usage) request.onUsage?.(usage);
        const piece = event.response;
        if (typeof piece === "string" && piece) yield piece;
      }
      return;
    }
    // Asked for whole, or a model that cannot stream: one object.
    const response = (answer as { response?: unknown } | null)?.response;
    if (typeof response !== "string") throw new DuetError("model_error", "Workers AI answered without response text");
    const usage = usageOf(answer);
    if (usage) request.onUsage?.(usage);
    if (response) yield response;
  }
}

/**
 * The binding throws plain errors ("3040: Capacity temporarily exceeded ...").
 * Being out of capacity or rate-limited is a 429 a retry may fix; anything else
 * is said as Workers AI said it.
 */
export function bindingError(err: unknown): Error {
  const said = (err as Error)?.message ?? String(err);
  if (/capacity|rate limit|too many requests|\b3040\b|\b429\b/i.test(said)) return new ModelRefusal(429, {}, said.slice(0, 200));
  if ((err as Error)?.name === "AbortError") return err as Error;
  return new DuetError("model_error", `Workers AI refused the request: ${said}`.slice(0, 300));
}
