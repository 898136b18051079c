import type { WorkerSettingName } from "@duet/shared";

/**
 * The Worker's variables (every name its config schema reads, validated in
 * config.ts) and the optional production bindings, as wrangler provides them.
 * The room namespace is added where the Durable Object class is declared
 * (room/duet-agent.ts), so nothing below it needs that class's type.
 */
export interface Vars extends Partial<Record<WorkerSettingName, string>> {
  /** Production only: the @cloudflare/sandbox Durable Object. */
  Sandbox?: DurableObjectNamespace;
  /** Production only: the R2 bucket rooms' workspaces are saved in, so they outlive their containers. */
  WORKSPACES?: R2Bucket;
  /** Production only: the Workers AI binding. */
  AI?: { run(model: string, input: unknown, options?: unknown): Promise<unknown> };
}
