import { accessLists, approveOwnVar, ConfigError, fileMaxBytesVar, fileOriginsVar, type GuardedAction, idListVar, optionalPort, otlpFields, parseEnv, streamingVar, type SuggestedPrompt, tracesConfig, type TracesConfig } from "@duet/shared";
import { z } from "zod";
import { oauthConfig, type OAuthConfig, oauthFields, oauthProblem } from "./oauth-config.ts";
import { suggestedPromptsVar } from "./suggested-prompts-var.ts";

/**
 * The Slack bot's configuration, read once from the environment at start.
 * A missing or malformed variable stops start-up with one line naming it.
 */

const url = (name: string) =>
  z
    .string()
    .trim()
    .refine((v) => /^https?:\/\/[^\s/]+/.test(v), `${name} must be an http(s) URL`);

/** Slack user ids (U…, W… on Enterprise Grid) and user group ids (S…). */
const SLACK_ID = /^[UWS][A-Z0-9]{2,20}$/;
const accessList = (name: string) => idListVar(name, (id) => SLACK_ID.test(id), "a Slack user id (U…, W…) or user group id (S…)");

const schema = z
  .object({
    SLACK_ALLOW_RUN: accessList("SLACK_ALLOW_RUN"),
    SLACK_ALLOW_APPROVE: accessList("SLACK_ALLOW_APPROVE"),
    SLACK_ALLOW_POLICY: accessList("SLACK_ALLOW_POLICY"),
    SLACK_ALLOW_RESET: accessList("SLACK_ALLOW_RESET"),
    SLACK_BOT_TOKEN: z
      .string()
      .trim()
      .refine((v) => v.startsWith("xoxb-"), "SLACK_BOT_TOKEN must be a bot token starting with xoxb-")
      .optional(),
    ...oauthFields,
    SLACK_SIGNING_SECRET: z.string().trim().min(1).optional(),
    SLACK_APP_TOKEN: z
      .string()
      .trim()
      .refine((v) => v.startsWith("xapp-"), "SLACK_APP_TOKEN must be an app-level token starting with xapp-")
      .optional(),
    SLACK_API_URL: url("SLACK_API_URL").optional(),
    SLACK_PORT: z.coerce
      .number({ error: "SLACK_PORT must be a port number" })
      .int("SLACK_PORT must be a port number")
      .min(0, "SLACK_PORT must be a port number")
      .max(65535, "SLACK_PORT must be a port number")
      .default(3000),
    // Socket Mode has no port of its own: /healthz is served here when set.
    HEALTH_PORT: optionalPort("HEALTH_PORT"),
    DUET_WORKER_URL: url("DUET_WORKER_URL").default("http://127.0.0.1:8787"),
    DUET_API_TOKEN: z.string({ error: "DUET_API_TOKEN is required (the shared secret the Worker expects)" }).trim().min(1, "DUET_API_TOKEN cannot be empty"),
    DUET_SLACK_ROOM_SCOPE: z.enum(["channel", "thread"], { error: "DUET_SLACK_ROOM_SCOPE must be channel or thread" }).default("channel"),
    DUET_STREAMING: streamingVar,
    ...otlpFields,
    DUET_APPROVE_OWN: approveOwnVar,
    DUET_FILE_MAX_BYTES: fileMaxBytesVar,
    SLACK_FILE_ORIGINS: fileOriginsVar("SLACK_FILE_ORIGINS"),
    SLACK_REPLICAS: z.enum(["one", "many"], { error: "SLACK_REPLICAS must be one or many" }).default("one"),
    SLACK_SUGGESTED_PROMPTS: suggestedPromptsVar,
  })
  .superRefine((env, ctx) => {
    const oauth = oauthProblem(env);
    if (oauth) return ctx.addIssue({ code: "custom", path: [oauth.name], message: oauth.message });
    if (!env.SLACK_CLIENT_ID && !env.SLACK_BOT_TOKEN) {
      ctx.addIssue({
        code: "custom",
        path: ["SLACK_BOT_TOKEN"],
        message: "SLACK_BOT_TOKEN is required (the xoxb- token from your Slack app's OAuth & Permissions page), or SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET for OAuth distribution",
      });
    }
    // HTTP mode must verify Slack's signatures; Socket Mode needs no public endpoint and no secret.
    if (!env.SLACK_APP_TOKEN && !env.SLACK_SIGNING_SECRET) {
      ctx.addIssue({
        code: "custom",
        path: ["SLACK_SIGNING_SECRET"],
        message: "SLACK_SIGNING_SECRET is required in HTTP mode (set SLACK_APP_TOKEN instead for Socket Mode)",
      });
    }
  });

/** Who may do a guarded action: null is everyone; else these people and the members of these user groups. */
export type AccessRule = { users: string[]; groups: string[] } | null;

export interface SlackConfig {
  access: Record<GuardedAction, AccessRule>;
  /** Whether a person may run or skip a command proposed for their own question (DUET_APPROVE_OWN). */
  approveOwn: boolean;
  /** One workspace's token; unset under OAuth distribution, where each workspace's comes from its installation. */
  botToken?: string;
  /** OAuth distribution (many workspaces); unset: the one workspace of `botToken`. */
  oauth?: OAuthConfig;
  signingSecret?: string;
  appToken?: string;
  /** Web API base, ending in '/'; undefined means Slack's own. */
  apiUrl?: string;
  port: number;
  /** Where Socket Mode serves /healthz (HTTP mode serves it on `port`); unset: not served. */
  healthPort?: number;
  workerUrl: string;
  apiToken: string;
  roomScope: "channel" | "thread";
  mode: "socket" | "http";
  /** Answers grow in the thread as they happen (DUET_STREAMING). */
  streaming: boolean;
  /** Where this bot's spans go (OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS); undefined: nowhere. */
  traces?: TracesConfig;
  /** The largest file shared into or posted from a workspace (DUET_FILE_MAX_BYTES, as the Worker's). */
  fileMaxBytes: number;
  /** Origins shared files may come from besides Slack's own https hosts (SLACK_FILE_ORIGINS: tests, development). */
  fileOrigins: string[];
  /**
   * Several processes answer this app (SLACK_REPLICAS=many: HTTP replicas
   * behind a balancer, or several Socket Mode connections): they share the
   * channel pace and hold the answers they post through the Worker.
   */
  replicas: "one" | "many";
  /** The prompts a new agent-pane conversation offers (SLACK_SUGGESTED_PROMPTS; at most four). */
  suggestedPrompts: SuggestedPrompt[];
}

export { ConfigError };

export function loadConfig(env: Record<string, string | undefined> = process.env): SlackConfig {
  const e = parseEnv(schema, env);
  const rule = (ids: string[]): AccessRule =>
    ids.length === 0 ? null : { users: ids.filter((id) => !id.startsWith("S")), groups: ids.filter((id) => id.startsWith("S")) };
  const lists = accessLists({ run: e.SLACK_ALLOW_RUN, approve: e.SLACK_ALLOW_APPROVE, policy: e.SLACK_ALLOW_POLICY, reset: e.SLACK_ALLOW_RESET });
  return {
    access: { run: rule(lists.run), approve: rule(lists.approve), policy: rule(lists.policy), reset: rule(lists.reset) },
    botToken: e.SLACK_CLIENT_ID ? undefined : e.SLACK_BOT_TOKEN,
    oauth: oauthConfig(e),
    signingSecret: e.SLACK_SIGNING_SECRET,
    appToken: e.SLACK_APP_TOKEN,
    apiUrl: e.SLACK_API_URL ? e.SLACK_API_URL.replace(/\/*$/, "/") : undefined,
    port: e.SLACK_PORT,
    healthPort: e.HEALTH_PORT,
    workerUrl: e.DUET_WORKER_URL.replace(/\/+$/, ""),
    apiToken: e.DUET_API_TOKEN,
    roomScope: e.DUET_SLACK_ROOM_SCOPE,
    mode: e.SLACK_APP_TOKEN ? "socket" : "http",
    streaming: e.DUET_STREAMING === "on",
    traces: tracesConfig(e),
    approveOwn: e.DUET_APPROVE_OWN === "yes",
    fileMaxBytes: e.DUET_FILE_MAX_BYTES,
    fileOrigins: e.SLACK_FILE_ORIGINS,
    replicas: e.SLACK_REPLICAS,
    suggestedPrompts: e.SLACK_SUGGESTED_PROMPTS,
  };
}
