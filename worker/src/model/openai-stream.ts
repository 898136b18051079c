import { DuetError } from "@duet/shared";
import type { WorkerConfig } from "../config.ts";
import { ModelRefusal } from "./retry.ts";
import { errorText, parseEvent, sseData } from "./sse-data.ts";
import type { ChatMessage, ChatModel, ModelRequest, TokenUsage } from "./types.ts";
import { usageOf } from "./usage.ts";

/**
 * The `openai` provider's module: `model` (the endpoint's name for it) offered
 * as `name`, on OPENAI_BASE_URL; refused in words an operator can act on when that is unset.
 */
export function openAIModel(model: string, name: string, config: WorkerConfig): ChatModel {
  if (!config.OPENAI_BASE_URL) {
    throw new DuetError(
      "model_not_configured",
      `No model endpoint is configured for ${name}: set OPENAI_BASE_URL (e.g. http://127.0.0.1:11434/v1 for Ollama) or serve it with workers-ai`,
    );
  }
  return new OpenAIChatModel(config.OPENAI_BASE_URL, model, config.OPENAI_API_KEY, name);
}

/**
 * Any OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM, llama.cpp's
 * server, AI Gateway): one POST to /chat/completions. Streamed, its SSE is read
 * as it arrives and `choices[0].delta.content` handed out; otherwise (or when
 * the server ignores `stream`) the one completion's `message.content`.
 */
export class OpenAIChatModel implements ChatModel {
  private readonly url: string;
  /** The base URL's host (a URL's host never holds its user or password). */
  readonly endpoint: string;
  /** The request is a fetch with the signal: an abort rejects it, or errors its body mid-read. */
  readonly endsOnAbort = true;

  constructor(
    baseUrl: string,
    /** The endpoint's own name for the model, sent with each request. */
    private readonly model: string,
    private readonly apiKey?: string,
    readonly name = model,
  ) {
    this.url = `${baseUrl.replace(/\/+$/, "")}/chat/completions`;
    this.endpoint = new URL(this.url).host;
  }

  async *stream(messages: ChatMessage[], request: ModelRequest): AsyncGenerator<string, void> {
    const res = await fetch(this.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}) },
      body: JSON.stringify({
        model: this.model,
        messages,
        stream: request.stream,
        ...(request.stream ? { stream_options: { include_usage: true } } : {}),
        max_tokens: request.maxTokens,
        temperature: request.temperature,
      }),
      signal: request.signal,
    });
    if (!res.ok) throw new ModelRefusal(res.status, Object.fromEntries(res.headers), await refusalDetail(res));
    if (!res.body) return;
    if (!(res.headers.get("content-type") ?? "").includes("text/event-stream")) {
      const whole = oneAnswer(await res.text());
      if (whole.usage) request.onUsage?.(whole.usage);
      if (whole.finish) request.onFinish?.(whole.finish);
      if (whole.content) yield whole.content;
      return;
    }
    for await (const data of sseData(res.body)) {
      const event = parseEvent(data);
      const usage = usageOf(event);
      if (usage) request.onUsage?.(usage);
      const choice = (event as { choices?: { delta?: { content?: unknown }; finish_reason?: unknown }[] }).choices?.[0];
      if (typeof choice?.finish_reason === "string") request.onFinish?.(choice.finish_reason);
      const piece = choice?.delta?.content;
      if (typeof piece === "string" && piece) yield piece;
    }
  }
}

/** One JSON completion: asked for whole, or a server that ignores `stream: true`. */
function oneAnswer(body: string): { content: string; usage: TokenUsage | null; finish?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new DuetError("model_error", "the model endpoint answered with something that is not JSON");
  }
  const content = (parsed as { choices?: { message?: { content?: unknown } }[] } | null)?.choices?.[0]?.message?.content;
  if (typeof content !== "string") throw new DuetError("model_error", "the model endpoint's answer has no message content");
  const finish = (parsed as { choices: { finish_reason?: unknown }[] }).choices[0].finish_reason;
  return { content, usage: usageOf(parsed), ...(typeof finish === "string" ? { finish } : {}) };
}

/** What the refusal's body says, for the log (a person hears the status only: a body may echo a key). */
async function refusalDetail(res: Response): Promise<string> {
  const body = await res.text().catch(() => "");
  try {
    return errorText((JSON.parse(body) as { error?: unknown }).error ?? JSON.parse(body)).slice(0, 200);
  } catch {
    return body.slice(0, 200);
  }
}
