import { DuetError, MODEL_PROVIDERS } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../config.ts";
import type { Vars } from "../vars.ts";
import { createLanguageModel, PROVIDER_MODULES } from "./language-model.ts";

/**
 * A provider is one entry in MODEL_PROVIDERS and one module in
 * PROVIDER_MODULES: a provider listed with no module would be refused (or,
 * worse, answered by another provider), so the two lists must name the same ones.
 */

/** Both providers configured at once: an OpenAI-compatible endpoint and an `AI` binding that answers nothing. */
const vars = (models: string) =>
  ({ MODEL_PROVIDER: "openai", DUET_MODELS: models, OPENAI_BASE_URL: "http://127.0.0.1:9/v1", AI: { run: async () => ({ response: "" }) } }) as unknown as Vars;

describe("model providers", () => {
  it("has a module for every provider in MODEL_PROVIDERS, and none for a provider not listed", () => {
    expect(Object.keys(PROVIDER_MODULES).sort()).toEqual([...MODEL_PROVIDERS].sort());
    for (const provider of MODEL_PROVIDERS) expect(PROVIDER_MODULES[provider], provider).toBeTypeOf("function");
  });

  it("asks a model where its own provider serves it, with both providers configured", () => {
    const env = vars("edge=workers-ai:@cf/test/edge,local=openai:qwen2.5:7b");
    const config = loadConfig(env);
    expect(createLanguageModel(config, env, "edge")).toMatchObject({ name: "edge", endpoint: "Workers AI" });
    expect(createLanguageModel(config, env, "local")).toMatchObject({ name: "local", endpoint: "127.0.0.1:9" });
  });

  it("refuses, in words naming what to set, a model whose provider lacks its setting", () => {
    const env = { MODEL_PROVIDER: "openai", DUET_MODELS: "edge=workers-ai:@cf/test/edge,local=openai:gpt-4o" } as Vars;
    const config = loadConfig(env);
    expect(() => createLanguageModel(config, env, "edge")).toThrow(/AI binding is missing/);
    expect(() => createLanguageModel(config, env, "local")).toThrow(/set OPENAI_BASE_URL/);
    expect(() => createLanguageModel(config, env, "absent")).toThrow(DuetError);
  });
});
