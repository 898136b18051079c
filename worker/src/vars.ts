/**
 * The Worker's variables and the optional production bindings, as wrangler
 * provides them (validated in config.ts). The room namespace is added where the
 * Durable Object class is declared (room/duet-agent.ts), so nothing below it
 * needs that class's type.
 */
export interface Vars {
  /** Production only: the @cloudflare/sandbox Durable Object. */
  Sandbox?: DurableObjectNamespace;
  /** Production only: the R2 bucket rooms' workspaces are saved in, so they outlive their containers. */
  WORKSPACES?: R2Bucket;
  /** Production only: the Workers AI binding. */
  AI?: { run(model: string, input: unknown, options?: unknown): Promise<unknown> };
  DUET_API_TOKEN?: string;
  MODEL_PROVIDER?: string;
  MODEL?: string;
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  MODEL_TIMEOUT_MS?: string;
  SANDBOX_PROVIDER?: string;
  SANDBOX_URL?: string;
  SANDBOX_TOKEN?: string;
  COMMAND_TIMEOUT_MS?: string;
  MAX_RUNS_PER_REPLY?: string;
  SANDBOX_PREWARM?: string;
  DUET_RUN_POLICY?: string;
  DUET_MODELS?: string;
  DUET_ROOM_DAILY_TOKENS?: string;
  DUET_USER_DAILY_TOKENS?: string;
  DUET_APPROVAL_TTL_MS?: string;
  DUET_FILE_MAX_BYTES?: string;
  SANDBOX_WORKSPACE_MAX_BYTES?: string;
  DUET_DELIVERY_GRACE_MS?: string;
  DUET_SCHEDULE_MIN_INTERVAL_S?: string;
  DUET_SCHEDULES_PER_ROOM?: string;
  GITHUB_APP_ID?: string;
  GITHUB_APP_PRIVATE_KEY?: string;
  GITHUB_APP_SLUG?: string;
  GITHUB_WEBHOOK_SECRET?: string;
  GITHUB_API_URL?: string;
}
