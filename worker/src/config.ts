import type { z } from "zod";
import { ConfigError, networkPolicyOf, otlpHeaders, type ModelPrice, type ModelProviderName, parseEnv, workerSettingsSchema as schema, type NetworkPolicy } from "@duet/shared";
import { gitRemoteOf, type GitRemoteConfig } from "./git-remote/remote-config.ts";
import type { GithubAppConfig } from "./github/app-config.ts";
import type { Vars } from "./vars.ts";

/** Workers AI model used when MODEL is unset: an 8B Llama that is still served (llama-3-8b was retired 2026-05-30). */
export const DEFAULT_WORKERS_AI_MODEL = "@cf/meta/llama-3.1-8b-instruct-fast";
export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";

export const DEFAULT_GITHUB_API_URL = "https://api.github.com";

/** The App when its id and key are both set; null when neither is; one line naming what is missing otherwise. */
function githubAppOf(c: z.infer<typeof schema>): GithubAppConfig | null {
  const { GITHUB_APP_ID: appId, GITHUB_APP_PRIVATE_KEY: privateKey } = c;
  if (appId && privateKey) {
    const apiUrl = (c.GITHUB_API_URL ?? DEFAULT_GITHUB_API_URL).replace(/\/+$/, "");
    return { appId, privateKey, apiUrl, ...(c.GITHUB_APP_SLUG ? { slug: c.GITHUB_APP_SLUG } : {}), ...(c.GITHUB_WEBHOOK_SECRET ? { webhookSecret: c.GITHUB_WEBHOOK_SECRET } : {}) };
  }
  if (appId || privateKey || c.GITHUB_APP_SLUG || c.GITHUB_WEBHOOK_SECRET) {
    throw new ConfigError("Worker misconfigured: a GitHub App needs both GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY (set both, or no GITHUB_APP_* at all)");
  }
  return null;
}

export type WorkerConfig = z.infer<typeof schema> & {
  /** The default model's name: MODEL, else the first of DUET_MODELS, else the provider's default. */
  model: string;
  /** The names of the models a room may use: the default first, then the rest of DUET_MODELS. */
  models: string[];
  /** Each name's provider and the provider's own name for the model. */
  offered: Map<string, ServedModel>;
  secrets: string[];
  network: NetworkPolicy;
  /** Null: no GitHub App configured. */
  github: GithubAppConfig | null;
  /** A plain git remote (DUET_GIT_REMOTE_URL, DUET_GIT_REMOTE_TOKEN); rooms use it when no GitHub App is configured. Null: none. */
  gitRemote: GitRemoteConfig | null;
};

/** Which provider serves an offered model, the provider's name for it, and its price when the operator gave one. */
export interface ServedModel {
  provider: ModelProviderName;
  model: string;
  price?: ModelPrice;
}

export { ConfigError };

// Parsed once per isolate: the env object is stable for the isolate's life, and
// re-validating it on every request would be wasted CPU on the hot path.
const cache = new WeakMap<object, WorkerConfig>();

export function loadConfig(env: Vars): WorkerConfig {
  const hit = cache.get(env);
  if (hit) return hit;
  const c = parseEnv(schema, env as unknown as Record<string, unknown>, "Worker misconfigured");
  const offered = new Map<string, ServedModel>(c.DUET_MODELS.map((e) => [e.name, { provider: e.provider ?? c.MODEL_PROVIDER, model: e.model, ...(e.price ? { price: e.price } : {}) }]));
  // MODEL names an offered model, or is one more model of MODEL_PROVIDER (offered first).
  const model = c.MODEL ?? c.DUET_MODELS[0]?.name ?? (c.MODEL_PROVIDER === "workers-ai" ? DEFAULT_WORKERS_AI_MODEL : DEFAULT_OPENAI_MODEL);
  if (!offered.has(model)) offered.set(model, { provider: c.MODEL_PROVIDER, model });
  const models = [model, ...[...offered.keys()].filter((name) => name !== model)];
  // Values that must never reach chat or history, even if a command prints them.
  const secrets = [c.DUET_API_TOKEN, c.DUET_API_TOKEN_PREVIOUS, c.OPENAI_API_KEY, c.SANDBOX_TOKEN, c.GITHUB_APP_PRIVATE_KEY, c.GITHUB_WEBHOOK_SECRET, c.DUET_GIT_REMOTE_TOKEN, ...Object.values(otlpHeaders(c.OTEL_EXPORTER_OTLP_HEADERS))].filter(
    (s): s is string => Boolean(s),
  );
  const config = { ...c, model, models, offered, secrets, network: networkPolicyOf(c), github: githubAppOf(c), gitRemote: gitRemoteOf(c.DUET_GIT_REMOTE_URL, c.DUET_GIT_REMOTE_TOKEN) };
  cache.set(env, config);
  return config;
}
