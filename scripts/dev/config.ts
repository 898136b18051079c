import { existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, modelSettingFields, parseEnv } from "@duet/shared";
import { z } from "zod";

/**
 * What `pnpm dev` starts, read once from the environment. A malformed variable
 * stops start-up with one line naming it.
 */

const port = (name: string, fallback: number, min: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === "") return fallback;
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > 65_535) {
        ctx.addIssue({ code: "custom", message: `${name} must be a port number from ${min} to 65535` });
        return z.NEVER;
      }
      return n;
    });

const text = z.string().optional().transform((v) => (v?.trim() ? v.trim() : undefined));

const schema = z.object({
  // The Worker's URL is printed and handed to the bots, so it needs a fixed port (no 0).
  DUET_WORKER_PORT: port("DUET_WORKER_PORT", 8787, 1),
  SANDBOX_PORT: port("SANDBOX_PORT", 8788, 0),
  // wrangler.toml's top level (local development) says openai.
  MODEL_PROVIDER: z.enum(["workers-ai", "openai"], { error: "MODEL_PROVIDER must be workers-ai or openai" }).optional().default("openai"),
  MODEL: text,
  // http(s) only: z.url() would take "localhost:11434" as a URL with the scheme "localhost:".
  OPENAI_BASE_URL: text.refine((v) => v === undefined || /^https?:\/\/[^\s/]+/.test(v), "OPENAI_BASE_URL must be an http(s) URL, e.g. http://127.0.0.1:11434/v1"),
  SLACK_BOT_TOKEN: text,
  SLACK_APP_TOKEN: text,
  SLACK_SIGNING_SECRET: text,
  DISCORD_TOKEN: text,
  // The Worker's models and budgets, checked here so a malformed one stops start-up before anything runs.
  ...modelSettingFields,
});

export interface BotPlan {
  name: "slack" | "discord";
  /** Repo-relative entry point, run with tsx. */
  entry: string;
  /** Why it is not started; undefined when it is. */
  skip?: string;
}

export interface DevConfig {
  workerPort: number;
  sandboxPort: number;
  model: { provider: "workers-ai" | "openai"; name?: string; baseUrl?: string };
  bots: BotPlan[];
}

export { ConfigError as DevConfigError };

/** `exists` is injected so the plan is tested without creating files in bots/. */
export function loadDevConfig(env: Record<string, string | undefined>, repoRoot: string, exists: (path: string) => boolean = existsSync): DevConfig {
  const c = parseEnv(schema, env, "pnpm dev");
  const plan = (name: BotPlan["name"], wanted: string | undefined): BotPlan => {
    const entry = `bots/${name}/src/main.ts`;
    if (wanted) return { name, entry, skip: wanted };
    if (!exists(join(repoRoot, entry))) return { name, entry, skip: `${entry} does not exist yet` };
    return { name, entry };
  };
  const slackMissing = !c.SLACK_BOT_TOKEN
    ? "SLACK_BOT_TOKEN is not set"
    : !c.SLACK_APP_TOKEN && !c.SLACK_SIGNING_SECRET
      ? "set SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode) too"
      : undefined;
  return {
    workerPort: c.DUET_WORKER_PORT,
    sandboxPort: c.SANDBOX_PORT,
    model: { provider: c.MODEL_PROVIDER, name: c.MODEL, baseUrl: c.OPENAI_BASE_URL },
    bots: [plan("slack", slackMissing), plan("discord", c.DISCORD_TOKEN ? undefined : "DISCORD_TOKEN is not set")],
  };
}

/** The model lines of the start-up summary; without a model, how to set one. */
export function describeModel(model: DevConfig["model"]): string[] {
  if (model.provider === "openai" && model.baseUrl) {
    return [`${model.name ?? "the Worker's default model"} at ${model.baseUrl} (OpenAI-compatible)`];
  }
  const why =
    model.provider === "workers-ai"
      ? "none locally: Workers AI (MODEL_PROVIDER=workers-ai) only runs when deployed to Cloudflare"
      : "none configured (MODEL_PROVIDER=openai needs OPENAI_BASE_URL)";
  return [
    why,
    "asks answer \"No AI model is configured\"; `npm run -s duet -- run ROOM CMD` works without a model. To set one:",
    "  local Ollama: MODEL_PROVIDER=openai OPENAI_BASE_URL=http://127.0.0.1:11434/v1 MODEL=llama3.1 npm run dev",
    "  Workers AI:   deploy with `npx wrangler deploy --env production` (see docs/deploying.md)",
  ];
}
