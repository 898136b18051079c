import { z } from "zod";
import { intVar, numberVar, optionalText } from "../config/env-config.ts";
import {
  DEFAULT_APPROVAL_TTL_MS,
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_FILE_MAX_BYTES,
  DEFAULT_MAX_RUNS_PER_REPLY,
  DEFAULT_MODEL_MAX_TOKENS,
  DEFAULT_MODEL_TEMPERATURE,
  DEFAULT_MODEL_TIMEOUT_MS,
  DEFAULT_WORKSPACE_MAX_BYTES,
  DEFAULT_ROOM_HISTORY_MAX_BYTES,
  DEFAULT_RECALL_TOKENS,
  DEFAULT_SUMMARY_TOKENS,
} from "../wire/limits.ts";
import { DELIVERY_LEASE_MAX_MS, DELIVERY_LEASE_MIN_MS, DELIVERY_LEASE_MS } from "../wire/delivery.ts";
import { MODEL_PROVIDERS, modelSettingFields } from "./model-settings.ts";
import { sandboxNetworkFields } from "../sandbox/sandbox-network.ts";
import { otlpFields } from "../trace/otlp-settings.ts";

/**
 * Every variable the Worker reads, as it reads them: the Worker parses its env
 * with this schema, and `pnpm dev` hands the same names from its environment to
 * the Worker and checks them the same way before anything starts.
 */
export const workerSettingsSchema = z.object({
  DUET_API_TOKEN: optionalText,
  /** Still accepted while a rotation is under way: the bots move to the new token, then this is removed. */
  DUET_API_TOKEN_PREVIOUS: optionalText,
  MODEL_PROVIDER: z.enum(MODEL_PROVIDERS, { error: "MODEL_PROVIDER must be workers-ai or openai" }).default("workers-ai"),
  MODEL: optionalText,
  OPENAI_BASE_URL: optionalText.pipe(z.url({ error: "OPENAI_BASE_URL must be a URL" }).optional()),
  OPENAI_API_KEY: optionalText,
  MODEL_TIMEOUT_MS: intVar("MODEL_TIMEOUT_MS", DEFAULT_MODEL_TIMEOUT_MS, 100, 600_000),
  MODEL_MAX_TOKENS: intVar("MODEL_MAX_TOKENS", DEFAULT_MODEL_MAX_TOKENS, 16, 32_768),
  MODEL_TEMPERATURE: numberVar("MODEL_TEMPERATURE", DEFAULT_MODEL_TEMPERATURE, 0, 2),
  SANDBOX_PROVIDER: z.enum(["cloudflare", "local"], { error: "SANDBOX_PROVIDER must be cloudflare or local" }).default("cloudflare"),
  SANDBOX_URL: optionalText.pipe(z.url({ error: "SANDBOX_URL must be a URL" }).optional()),
  SANDBOX_TOKEN: optionalText,
  COMMAND_TIMEOUT_MS: intVar("COMMAND_TIMEOUT_MS", DEFAULT_COMMAND_TIMEOUT_MS, 100, 600_000),
  MAX_RUNS_PER_REPLY: intVar("MAX_RUNS_PER_REPLY", DEFAULT_MAX_RUNS_PER_REPLY, 0, 20),
  /** Wake the room's sandbox while the model thinks (on), or only when a command runs (off, for comparison). */
  SANDBOX_PREWARM: z.enum(["on", "off"], { error: "SANDBOX_PREWARM must be on or off" }).default("on"),
  /** Where a sandbox may connect: SANDBOX_NETWORK, SANDBOX_ALLOWED_HOSTS, SANDBOX_DENIED_HOSTS. */
  ...sandboxNetworkFields,
  /** A room's run policy until someone sets one: run the model's commands at once, or wait for approval. */
  DUET_RUN_POLICY: z.enum(["auto", "approve"], { error: "DUET_RUN_POLICY must be auto or approve" }).default("auto"),
  /** How long one MCP tool call (its session opened, the call answered) may take before the turn goes on with a line saying so. */
  DUET_TOOL_TIMEOUT_MS: intVar("DUET_TOOL_TIMEOUT_MS", 30_000, 100, 600_000),
  /** Tool (MCP) servers may be on loopback and private addresses, over plain http: local fakes in tests and `pnpm dev` only, never production. */
  DUET_TOOLS_ALLOW_PRIVATE: z.enum(["0", "1"], { error: "DUET_TOOLS_ALLOW_PRIVATE must be 0 or 1" }).default("0"),
  /** The Worker's address as a person's browser reaches it, for a tool server's OAuth callback; unset: the address the bots reached it at. */
  DUET_PUBLIC_URL: optionalText.pipe(z.url({ error: "DUET_PUBLIC_URL must be a URL" }).optional()),
  /** How long a proposed command waits for Run or Skip: at least a second, at most a week. */
  DUET_APPROVAL_TTL_MS: intVar("DUET_APPROVAL_TTL_MS", DEFAULT_APPROVAL_TTL_MS, 1_000, 7 * 24 * 60 * 60 * 1000),
  /** One file into or out of a workspace. */
  DUET_FILE_MAX_BYTES: intVar("DUET_FILE_MAX_BYTES", DEFAULT_FILE_MAX_BYTES, 1, 2 ** 40),
  /** A room's searchable conversation (question and answer text), oldest turns dropped first past it. */
  DUET_ROOM_HISTORY_MAX_BYTES: intVar("DUET_ROOM_HISTORY_MAX_BYTES", DEFAULT_ROOM_HISTORY_MAX_BYTES, 1_024, 2 ** 40),
  /** Tokens of earlier turns recalled into each prompt (at about 4 characters a token); 0 turns recall off. */
  DUET_RECALL_TOKENS: intVar("DUET_RECALL_TOKENS", DEFAULT_RECALL_TOKENS, 0, 32_768),
  /** Tokens of history fallen out of the model's window before the room's model summarises it (about 4 characters a token); 0 turns summaries off. */
  DUET_SUMMARY_TOKENS: intVar("DUET_SUMMARY_TOKENS", DEFAULT_SUMMARY_TOKENS, 0, 1_000_000),
  /** A room's whole workspace: in production, a workspace past it is not saved (and a note says so). */
  SANDBOX_WORKSPACE_MAX_BYTES: intVar("SANDBOX_WORKSPACE_MAX_BYTES", DEFAULT_WORKSPACE_MAX_BYTES, 1, 2 ** 50),
  /** How long a bot has to confirm an answer it received before the room offers it in its platform's feed. */
  DUET_DELIVERY_GRACE_MS: intVar("DUET_DELIVERY_GRACE_MS", 15_000, 0, 10 * 60 * 1000),
  /**
   * How long an answer handed to a bot (by the feed, or held while its bot still posts it) is that bot's alone. The bots
   * renew a held answer every third of what the Worker's hold answers, so tests shorten it safely; an answer handed out
   * by the feed is not renewed, so it must leave time to post a long answer.
   */
  DUET_DELIVERY_LEASE_MS: intVar("DUET_DELIVERY_LEASE_MS", DELIVERY_LEASE_MS, DELIVERY_LEASE_MIN_MS, DELIVERY_LEASE_MAX_MS),
  /** A schedule's shortest interval: 15 minutes keeps a room's model use and chat traffic sane; tests set a second. */
  DUET_SCHEDULE_MIN_INTERVAL_S: intVar("DUET_SCHEDULE_MIN_INTERVAL_S", 900, 1, 7 * 24 * 60 * 60),
  /** Schedules one room may hold: each is a row and a turn per run. */
  DUET_SCHEDULES_PER_ROOM: intVar("DUET_SCHEDULES_PER_ROOM", 10, 0, 100),
  /**
   * The models a room may switch to (DUET_MODELS: `name=provider:model` or
   * plain names for MODEL_PROVIDER) and the daily token budgets
   * (DUET_ROOM_DAILY_TOKENS, DUET_USER_DAILY_TOKENS; unset: none).
   */
  ...modelSettingFields,
  /** A GitHub App, for rooms' repositories: its id and private key together, or neither (the Worker's config checks). */
  GITHUB_APP_ID: optionalText.pipe(z.string().regex(/^\d{1,20}$/, "GITHUB_APP_ID must be the App's numeric id").optional()),
  GITHUB_APP_PRIVATE_KEY: optionalText,
  /** The App's URL name, for the install link people are sent to. */
  GITHUB_APP_SLUG: optionalText.pipe(z.string().regex(/^[a-z0-9][a-z0-9-]{0,99}$/i, "GITHUB_APP_SLUG must be the App's URL name (letters, digits, hyphens)").optional()),
  GITHUB_WEBHOOK_SECRET: optionalText,
  /** GitHub's REST API: github.com's, or a GitHub Enterprise Server's `https://HOST/api/v3`. */
  GITHUB_API_URL: optionalText.pipe(z.url({ error: "GITHUB_API_URL must be a URL" }).optional()),
  /**
   * A plain git remote over HTTPS, used when no GitHub App is set: the URL with `{repo}` for `owner/name`, and the
   * token Duet's own git steps send (Basic auth); both or neither (the Worker's config checks). Branches only, no pull requests.
   */
  DUET_GIT_REMOTE_URL: optionalText,
  DUET_GIT_REMOTE_TOKEN: optionalText,
  /**
   * An OTLP/HTTP collector's base URL (each turn's spans go to its `/v1/traces`; unset: none are sent), its
   * headers, and how long the Worker waits after a turn before it sends the spans gathered meanwhile.
   */
  ...otlpFields,
});

/** The name of one of the Worker's variables. */
export type WorkerSettingName = keyof typeof workerSettingsSchema.shape;

/** The names of the Worker's variables. */
export const WORKER_SETTING_VARS = Object.keys(workerSettingsSchema.shape) as WorkerSettingName[];
