import { DuetError } from "@duet/shared";
import type { Env } from "../env.ts";
import type { ChatMessage, GenerationSettings, ModelProvider } from "./types.ts";

/** Workers AI through the `AI` binding (production). */
export class WorkersAIProvider implements ModelProvider {
  constructor(
    private readonly ai: NonNullable<Env["AI"]>,
    private readonly model: string,
    private readonly generation: GenerationSettings,
  ) {}

  async complete(messages: ChatMessage[], signal: AbortSignal): Promise<string> {
    const result = (await this.ai.run(
      this.model,
      { messages, max_tokens: this.generation.maxTokens, temperature: this.generation.temperature },
      { signal },
    )) as { response?: unknown } | null;
    if (!result || typeof result.response !== "string") {
      throw new DuetError("model_error", "Workers AI returned no text");
    }
    return result.response;
  }
}
