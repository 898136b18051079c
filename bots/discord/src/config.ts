import { accessLists, approveOwnVar, ConfigError, fileMaxBytesVar, fileOriginsVar, type GuardedAction, idListVar, optionalPort, otlpFields, parseEnv, streamingVar, tracesConfig, type TracesConfig } from "@duet/shared";
import { z } from "zod";

/**
 * The Discord bot's configuration, read once from the environment at start.
 * A missing or malformed variable stops start-up with one line naming it.
 */

const snowflake = (name: string) => z.string().trim().regex(/^\d{15,21}$/, `${name} must be a Discord id (digits only)`);

/** In a DISCORD_ALLOW_* list: members with the Manage Channels permission (server admins have it too). */
export const MANAGE_CHANNELS = "manage-channels";
const accessList = (name: string) =>
  idListVar(name, (id) => /^\d{15,21}$/.test(id) || id.toLowerCase() === MANAGE_CHANNELS, `a Discord role id (digits) or ${MANAGE_CHANNELS}`);

const schema = z.object({
  DISCORD_ALLOW_RUN: accessList("DISCORD_ALLOW_RUN"),
  DISCORD_ALLOW_APPROVE: accessList("DISCORD_ALLOW_APPROVE"),
  DISCORD_ALLOW_POLICY: accessList("DISCORD_ALLOW_POLICY"),
  DISCORD_ALLOW_RESET: accessList("DISCORD_ALLOW_RESET"),
  DISCORD_TOKEN: z
    .string({ error: "DISCORD_TOKEN is required (the bot token from your Discord application's Bot page)" })
    .trim()
    .min(1, "DISCORD_TOKEN cannot be empty")
    .refine((v) => !/\s/.test(v), "DISCORD_TOKEN must not contain spaces (paste the token alone, without 'Bot ')"),
  DISCORD_APPLICATION_ID: snowflake("DISCORD_APPLICATION_ID").optional(),
  DISCORD_GUILD_ID: snowflake("DISCORD_GUILD_ID").optional(),
  DISCORD_API_URL: z
    .string()
    .trim()
    .refine((v) => /^https?:\/\/[^\s/]+/.test(v), "DISCORD_API_URL must be an http(s) URL (Discord's is https://discord.com/api)")
    .optional(),
  DISCORD_SHARD_COUNT: z
    .string()
    .trim()
    .regex(/^(auto|[1-9]\d{0,4})$/, "DISCORD_SHARD_COUNT must be a whole number of shards or auto")
    .optional(),
  HEALTH_PORT: optionalPort("HEALTH_PORT"),
  DUET_WORKER_URL: z
    .string()
    .trim()
    .refine((v) => /^https?:\/\/[^\s/]+/.test(v), "DUET_WORKER_URL must be an http(s) URL")
    .default("http://127.0.0.1:8787"),
  DUET_API_TOKEN: z
    .string({ error: "DUET_API_TOKEN is required (the shared secret the Worker expects)" })
    .trim()
    .min(1, "DUET_API_TOKEN cannot be empty"),
  DUET_STREAMING: streamingVar,
  ...otlpFields,
  DUET_APPROVE_OWN: approveOwnVar,
  DUET_FILE_MAX_BYTES: fileMaxBytesVar,
  DISCORD_CDN_ORIGINS: fileOriginsVar("DISCORD_CDN_ORIGINS"),
  DISCORD_COMPONENTS: z.enum(["classic", "v2"], { error: "DISCORD_COMPONENTS must be classic or v2" }).default("classic"),
});

/** Who may do a guarded action: null is everyone; else members with one of these roles, or with Manage Channels when `manageChannels`. */
export type AccessRule = { roles: string[]; manageChannels: boolean } | null;

export interface DiscordConfig {
  access: Record<GuardedAction, AccessRule>;
  /** Whether a person may run or skip a command proposed for their own question (DUET_APPROVE_OWN). */
  approveOwn: boolean;
  token: string;
  /** Needed to register commands; the bot itself learns it from READY. */
  applicationId?: string;
  /** Register commands in this guild only (instant) instead of globally. */
  guildId?: string;
  /** REST base without the version, as discord.js's `rest.api` (default https://discord.com/api). */
  apiUrl?: string;
  /** Shards the sharding manager starts (`src/shards.ts`); "auto" asks Discord. */
  shardCount: number | "auto";
  /** Where /healthz is served; unset: not served. */
  healthPort?: number;
  workerUrl: string;
  apiToken: string;
  /** Answers are edited in as they happen (DUET_STREAMING). */
  streaming: boolean;
  /** Where this bot's spans go (OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS); undefined: nowhere. */
  traces?: TracesConfig;
  /** The largest file shared into or posted from a workspace (DUET_FILE_MAX_BYTES, as the Worker's). */
  fileMaxBytes: number;
  /** Origins attachments may come from besides Discord's CDN (DISCORD_CDN_ORIGINS: tests, development). */
  cdnOrigins: string[];
  /**
   * How answers are laid out (DISCORD_COMPONENTS): `classic`, message content and
   * button rows; `v2`, one container of text displays and buttons (Components V2).
   * Classic by default: a V2 message can never become classic again, and clients
   * without V2 show it empty, so a server opts in.
   */
  components: ComponentsStyle;
}

export type ComponentsStyle = "classic" | "v2";

export { ConfigError };

/** Registering commands talks to Discord only, so it does not need the Worker's token. */
const registerSchema = schema.extend({ DUET_API_TOKEN: z.string().trim().optional() });

export function loadConfig(env: Record<string, string | undefined> = process.env, purpose: "bot" | "register" = "bot"): DiscordConfig {
  const e = parseEnv(purpose === "register" ? registerSchema : schema, env);
  const rule = (ids: string[]): AccessRule =>
    ids.length === 0 ? null : { roles: ids.filter((id) => /^\d+$/.test(id)), manageChannels: ids.some((id) => id.toLowerCase() === MANAGE_CHANNELS) };
  const lists = accessLists({ run: e.DISCORD_ALLOW_RUN, approve: e.DISCORD_ALLOW_APPROVE, policy: e.DISCORD_ALLOW_POLICY, reset: e.DISCORD_ALLOW_RESET });
  return {
    access: { run: rule(lists.run), approve: rule(lists.approve), policy: rule(lists.policy), reset: rule(lists.reset) },
    token: e.DISCORD_TOKEN,
    applicationId: e.DISCORD_APPLICATION_ID,
    guildId: e.DISCORD_GUILD_ID,
    apiUrl: e.DISCORD_API_URL?.replace(/\/+$/, ""),
    shardCount: !e.DISCORD_SHARD_COUNT || e.DISCORD_SHARD_COUNT === "auto" ? "auto" : Number(e.DISCORD_SHARD_COUNT),
    healthPort: e.HEALTH_PORT,
    workerUrl: e.DUET_WORKER_URL.replace(/\/+$/, ""),
    apiToken: e.DUET_API_TOKEN ?? "",
    streaming: e.DUET_STREAMING === "on",
    traces: tracesConfig(e),
    approveOwn: e.DUET_APPROVE_OWN === "yes",
    fileMaxBytes: e.DUET_FILE_MAX_BYTES,
    cdnOrigins: e.DISCORD_CDN_ORIGINS,
    components: e.DISCORD_COMPONENTS,
  };
}
