import { DuetError } from "@duet/shared";
import type { ChatMessage, GenerationSettings, ModelProvider } from "./types.ts";

/**
 * Any OpenAI-compatible chat endpoint: OpenAI, Ollama, vLLM, llama.cpp's server,
 * Cloudflare AI Gateway. Only `POST {base}/chat/completions` is used.
 */
export class OpenAIProvider implements ModelProvider {
  private readonly url: string;

  constructor(
    baseUrl: string,
    private readonly model: string,
    private readonly generation: GenerationSettings,
    private readonly apiKey?: string,
  ) {
    this.url = `${baseUrl.replace(/\/+$/, "")}/chat/completions`;
  }

  async complete(messages: ChatMessage[], signal: AbortSignal): Promise<string> {
    const res = await fetch(this.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: this.model, messages, max_tokens: this.generation.maxTokens, temperature: this.generation.temperature }),
      signal,
    });
    const raw = await res.text();
    if (!res.ok) {
      throw new DuetError("model_error", `the model endpoint answered HTTP ${res.status}`);
    }
    let json: { choices?: { message?: { content?: unknown } }[] };
    try {
      json = JSON.parse(raw);
    } catch {
      throw new DuetError("model_error", "the model endpoint answered with something that is not JSON");
    }
    const content = json.choices?.[0]?.message?.content;
    if (typeof content !== "string") {
      throw new DuetError("model_error", "the model endpoint's answer has no message content");
    }
    return content;
  }
}
