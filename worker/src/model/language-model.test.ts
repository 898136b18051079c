import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../config.ts";
import type { Env } from "../env.ts";
import { createLanguageModel } from "./language-model.ts";

describe("createLanguageModel", () => {
  it("builds the model once per environment and config, so turns share it (and its compiled schemas)", () => {
    const config = loadConfig(env as unknown as Env);
    const model = createLanguageModel(config, env as unknown as Env);
    expect(createLanguageModel(config, env as unknown as Env)).toBe(model);
    expect(createLanguageModel({ ...config }, env as unknown as Env)).not.toBe(model);
    expect(createLanguageModel(config, { ...env } as unknown as Env)).not.toBe(model);
  });
});
