import { describe, expect, it } from "vitest";
import { completeWithDeadline } from "./provider.ts";
import { WorkersAIProvider } from "./workers-ai.ts";

/** A stand-in for the `AI` binding, which needs a Cloudflare account to exist. */
function binding(run: (model: string, input: unknown) => Promise<unknown>) {
  const calls: { model: string; input: unknown }[] = [];
  return {
    calls,
    ai: {
      run: async (model: string, input: unknown) => {
        calls.push({ model, input });
        return run(model, input);
      },
    },
  };
}

describe("Workers AI provider", () => {
  const messages = [{ role: "user" as const, content: "hi" }];
  const generation = { maxTokens: 1024, temperature: 0.2 };

  it("sends the chat messages to the configured model and returns its text", async () => {
    const b = binding(async () => ({ response: "Hello from Llama" }));
    const provider = new WorkersAIProvider(b.ai, "@cf/meta/llama-3.1-8b-instruct-fast", generation);
    expect(await completeWithDeadline(provider, messages, 1_000)).toBe("Hello from Llama");
    expect(b.calls).toEqual([{ model: "@cf/meta/llama-3.1-8b-instruct-fast", input: { messages, max_tokens: 1024, temperature: 0.2 } }]);
  });

  it("turns a missing answer, a binding error and a timeout into model errors", async () => {
    await expect(completeWithDeadline(new WorkersAIProvider(binding(async () => ({})).ai, "m", generation), messages, 1_000)).rejects.toMatchObject({ code: "model_error" });
    const failing = binding(async () => {
      throw new Error("3040: Capacity temporarily exceeded");
    });
    await expect(completeWithDeadline(new WorkersAIProvider(failing.ai, "m", generation), messages, 1_000)).rejects.toMatchObject({
      code: "model_error",
      message: expect.stringMatching(/Capacity temporarily exceeded/),
    });
    const hanging = binding(() => new Promise(() => {}));
    await expect(completeWithDeadline(new WorkersAIProvider(hanging.ai, "m", generation), messages, 50)).rejects.toMatchObject({ code: "model_timeout", status: 504 });
  });
});
