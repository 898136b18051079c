import { describe, expect, it } from "vitest";
import { readModelList } from "./model-settings.ts";

describe("DUET_MODELS", () => {
  it("reads named entries with their provider, and plain names for MODEL_PROVIDER", () => {
    expect(readModelList("fast=workers-ai:@cf/meta/llama-3.1-8b-instruct, strong=openai:gpt-4o,gpt-4o-mini,")).toEqual([
      { name: "fast", provider: "workers-ai", model: "@cf/meta/llama-3.1-8b-instruct" },
      { name: "strong", provider: "openai", model: "gpt-4o" },
      { name: "gpt-4o-mini", model: "gpt-4o-mini" },
    ]);
    expect(readModelList(undefined)).toEqual([]);
  });

  it("ends the provider at the first colon, so a model name may hold more (Ollama tags)", () => {
    expect(readModelList("local=openai:qwen2.5:7b")).toEqual([{ name: "local", provider: "openai", model: "qwen2.5:7b" }]);
    expect(readModelList("qwen2.5:7b")).toEqual([{ name: "qwen2.5:7b", model: "qwen2.5:7b" }]);
  });

  it("says in one line what is wrong with a bad entry", () => {
    expect(readModelList("fast=anthropic:claude")).toBe('DUET_MODELS has "fast=anthropic:claude": "anthropic" is not a provider (one of workers-ai, openai)');
    expect(readModelList("=openai:gpt-4o")).toBe('DUET_MODELS has "=openai:gpt-4o": the name before = is empty (write name=provider:model)');
    expect(readModelList("fast=openai:")).toBe('DUET_MODELS has "fast=openai:": the model after openai: is empty');
    expect(readModelList("fast=gpt-4o")).toBe('DUET_MODELS has "fast=gpt-4o": no provider (write fast=provider:model, provider one of workers-ai, openai)');
    expect(readModelList("fast=openai:gpt-4o,fast=workers-ai:@cf/x")).toBe('DUET_MODELS names "fast" twice; each name must be different');
    expect(readModelList("a,b,a")).toBe('DUET_MODELS names "a" twice; each name must be different');
  });

  it("reads a price per million input and output tokens at the end of either form, and leaves Workers AI's @cf/ names alone", () => {
    expect(readModelList("strong=openai:gpt-4o@2.50/10, mini@0.15/0.6, local=openai:qwen2.5:7b, edge=workers-ai:@cf/meta/llama-3.1-8b-instruct@0.05/0.2")).toEqual([
      { name: "strong", provider: "openai", model: "gpt-4o", price: { input: 2.5, output: 10 } },
      { name: "mini", model: "mini", price: { input: 0.15, output: 0.6 } },
      { name: "local", provider: "openai", model: "qwen2.5:7b" },
      { name: "edge", provider: "workers-ai", model: "@cf/meta/llama-3.1-8b-instruct", price: { input: 0.05, output: 0.2 } },
    ]);
    expect(readModelList("free=workers-ai:@cf/x/y@0/0")).toEqual([{ name: "free", provider: "workers-ai", model: "@cf/x/y", price: { input: 0, output: 0 } }]);
    expect(readModelList("@cf/meta/llama-3.1-8b-instruct")).toEqual([{ name: "@cf/meta/llama-3.1-8b-instruct", model: "@cf/meta/llama-3.1-8b-instruct" }]);
  });

  it("refuses a price that is not two amounts from 0 to 10,000, naming the entry", () => {
    const rule = "the price must be @IN/OUT, US dollars per million input and output tokens from 0 to 10000 (e.g. @2.5/10)";
    for (const bad of ["@2.50/", "@/10", "@-1/2", "@25000/1", "@/", "@1e9/1", "@1..2/3"]) {
      expect(readModelList(`strong=openai:gpt-4o${bad}`), bad).toBe(`DUET_MODELS has "strong=openai:gpt-4o${bad}": ${rule}`);
    }
  });
});
