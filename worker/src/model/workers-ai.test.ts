import { describe, expect, it } from "vitest";
import { createLanguageModel } from "./language-model.ts";
import { streamModelText } from "./stream.ts";
import { loadConfig } from "../config.ts";
import type { Vars } from "../vars.ts";

/** A stand-in for the `AI` binding (it needs a Cloudflare account): with `stream: true` it answers SSE, as Workers AI does. */
interface Input {
  messages: unknown;
  stream?: boolean;
  max_tokens?: number;
  temperature?: number;
}

function binding(answer: (input: Input, call: number) => Promise<unknown>) {
  const calls: { model: string; input: Input; options: { signal?: AbortSignal } }[] = [];
  return {
    calls,
    AI: {
      run: async (model: string, input: Input, options: { signal?: AbortSignal }) => {
        calls.push({ model, input, options });
        return answer(input, calls.length);
      },
    },
  };
}

/** Workers AI's stream: one `data: {"response": ...}` event per piece, then `data: [DONE]`, cut into small chunks as the network would. */
function sse(pieces: string[], last?: Record<string, unknown>): ReadableStream<Uint8Array> {
  const events = [...pieces.map((p) => ({ response: p })), ...(last ? [last] : [])];
  const body = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + "data: [DONE]\n\n";
  const bytes = new TextEncoder().encode(body);
  return new ReadableStream({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 7) controller.enqueue(bytes.slice(i, i + 7));
      controller.close();
    },
  });
}

const config = loadConfig({ MODEL_PROVIDER: "workers-ai", MODEL: "@cf/meta/llama-3.1-8b-instruct-fast" } as Vars);
const messages = [{ role: "user" as const, content: "hi" }];

async function collect(pieces: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const p of pieces) out.push(p);
  return out;
}

describe("Workers AI through the binding", () => {
  it("streams the configured model's answer piece by piece", async () => {
    const b = binding(async (input) => (input.stream ? sse(["Hello ", "from ", "Llama"]) : { response: "not streamed" }));
    const model = createLanguageModel(config, { AI: b.AI } as unknown as Vars);
    const pieces = await collect(streamModelText(model, messages, { signal: new AbortController().signal, stream: true, timeoutMs: 2_000 }));
    expect(pieces.join("")).toBe("Hello from Llama");
    expect(b.calls[0]).toMatchObject({ model: config.model, input: { stream: true, messages } });
    expect(b.calls[0].options.signal).toBeInstanceOf(AbortSignal);
  });

  it("sends the system prompt first, the generation cap and the temperature", async () => {
    const b = binding(async () => sse(["ok"]));
    const chat = [{ role: "system" as const, content: "be brief" }, ...messages];
    await collect(streamModelText(createLanguageModel(config, { AI: b.AI } as unknown as Vars), chat, { signal: new AbortController().signal, stream: true, timeoutMs: 2_000, maxTokens: 77, temperature: 0.3 }));
    expect(b.calls[0].input).toMatchObject({ messages: chat, max_tokens: 77, temperature: 0.3 });
  });

  it("reports Workers AI's own token counts: a stream's last event, a whole answer's object, and none when it gives none", async () => {
    const usage = { prompt_tokens: 31, completion_tokens: 4, total_tokens: 35 };
    const seen: unknown[] = [];
    const onUsage = (u: unknown) => void seen.push(u);
    const streamed = binding(async () => sse(["Hello ", "there"], { response: "", usage }));
    await collect(streamModelText(createLanguageModel(config, { AI: streamed.AI } as unknown as Vars), messages, { signal: new AbortController().signal, stream: true, timeoutMs: 2_000, onUsage }));
    const whole = binding(async () => ({ response: "whole", usage: { prompt_tokens: 12, completion_tokens: 2 } }));
    await collect(streamModelText(createLanguageModel(config, { AI: whole.AI } as unknown as Vars), messages, { signal: new AbortController().signal, stream: false, timeoutMs: 2_000, onUsage }));
    const silent = binding(async () => ({ response: "no figures" }));
    await collect(streamModelText(createLanguageModel(config, { AI: silent.AI } as unknown as Vars), messages, { signal: new AbortController().signal, stream: false, timeoutMs: 2_000, onUsage }));
    expect(seen).toEqual([
      { inputTokens: 31, outputTokens: 4 },
      { inputTokens: 12, outputTokens: 2 },
    ]);
  });

  it("asks for the answer whole when nobody follows it live", async () => {
    const b = binding(async (input) => (input.stream ? sse(["Hello ", "from ", "Llama"]) : { response: "whole answer" }));
    const pieces = await collect(streamModelText(createLanguageModel(config, { AI: b.AI } as unknown as Vars), messages, { signal: new AbortController().signal, stream: false, timeoutMs: 2_000 }));
    expect(pieces).toEqual(["whole answer"]);
    expect(b.calls[0].input).toMatchObject({ stream: false });
  });

  it("takes the one answer of a model that does not stream", async () => {
    const b = binding(async () => ({ response: "all at once" }));
    const pieces = await collect(streamModelText(createLanguageModel(config, { AI: b.AI } as unknown as Vars), messages, { signal: new AbortController().signal, stream: true, timeoutMs: 2_000 }));
    expect(pieces).toEqual(["all at once"]);
  });

  it("asks again when Workers AI is out of capacity, and says so when it stays that way", async () => {
    const busyOnce = binding(async (_input, call) => (call === 1 ? Promise.reject(new Error("3040: Capacity temporarily exceeded, please try again.")) : sse(["after a wait"])));
    const model = createLanguageModel(config, { AI: busyOnce.AI } as unknown as Vars);
    expect((await collect(streamModelText(model, messages, { signal: new AbortController().signal, stream: true, timeoutMs: 5_000 }))).join("")).toBe("after a wait");
    expect(busyOnce.calls).toHaveLength(2);
    const busy = binding(async () => Promise.reject(new Error("3040: Capacity temporarily exceeded, please try again.")));
    await expect(collect(streamModelText(createLanguageModel(config, { AI: busy.AI } as unknown as Vars), messages, { signal: new AbortController().signal, stream: true, timeoutMs: 300 }))).rejects.toMatchObject({
      code: "model_error",
      message: "the model endpoint answered HTTP 429",
    });
  });

  it("turns a binding error into a model error, and a binding that never answers into a timeout", async () => {
    const failing = createLanguageModel(config, { AI: binding(async () => Promise.reject(new Error("5007: No such model"))).AI } as unknown as Vars);
    await expect(collect(streamModelText(failing, messages, { signal: new AbortController().signal, stream: true, timeoutMs: 2_000 }))).rejects.toMatchObject({
      code: "model_error",
      message: expect.stringMatching(/No such model|HTTP/),
    });
    const hanging = createLanguageModel(config, { AI: binding(() => new Promise(() => {})).AI } as unknown as Vars);
    await expect(collect(streamModelText(hanging, messages, { signal: new AbortController().signal, stream: true, timeoutMs: 100 }))).rejects.toMatchObject({ code: "model_timeout", status: 504 });
  });
});
