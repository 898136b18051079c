import { describe, expect, it } from "vitest";
import { createLanguageModel } from "./language-model.ts";
import { streamModelText } from "./stream.ts";
import type { WorkerConfig } from "../config.ts";
import type { Env } from "../env.ts";

/** A stand-in for the `AI` binding (it needs a Cloudflare account): with `stream: true` it answers SSE, as Workers AI does. */
function binding(answer: (input: { stream?: boolean }) => Promise<unknown>) {
  const calls: { model: string; input: { messages: unknown; stream?: boolean } }[] = [];
  return {
    calls,
    AI: {
      run: async (model: string, input: { messages: unknown; stream?: boolean }) => {
        calls.push({ model, input });
        return answer(input);
      },
    },
  };
}

function sse(pieces: string[]): ReadableStream<Uint8Array> {
  const body = pieces.map((p) => `data: ${JSON.stringify({ response: p })}\n\n`).join("") + "data: [DONE]\n\n";
  return new Response(body).body!;
}

const config = { MODEL_PROVIDER: "workers-ai", model: "@cf/meta/llama-3.1-8b-instruct-fast" } as WorkerConfig;
const messages = [{ role: "user" as const, content: "hi" }];

async function collect(pieces: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const p of pieces) out.push(p);
  return out;
}

describe("Workers AI through the binding", () => {
  it("streams the configured model's answer piece by piece", async () => {
    const b = binding(async (input) => (input.stream ? sse(["Hello ", "from ", "Llama"]) : { response: "not streamed" }));
    const model = createLanguageModel(config, { AI: b.AI } as unknown as Env);
    const pieces = await collect(streamModelText(model, messages, { signal: new AbortController().signal, timeoutMs: 2_000 }));
    expect(pieces.join("")).toBe("Hello from Llama");
    expect(b.calls[0]).toMatchObject({ model: config.model, input: { stream: true } });
  });

  it("turns a binding error into a model error, and a binding that never answers into a timeout", async () => {
    const failing = createLanguageModel(config, { AI: binding(async () => Promise.reject(new Error("5007: No such model"))).AI } as unknown as Env);
    await expect(collect(streamModelText(failing, messages, { signal: new AbortController().signal, timeoutMs: 2_000 }))).rejects.toMatchObject({
      code: "model_error",
      message: expect.stringMatching(/No such model|HTTP/),
    });
    const hanging = createLanguageModel(config, { AI: binding(() => new Promise(() => {})).AI } as unknown as Env);
    await expect(collect(streamModelText(hanging, messages, { signal: new AbortController().signal, timeoutMs: 100 }))).rejects.toMatchObject({ code: "model_timeout", status: 504 });
  });
});
