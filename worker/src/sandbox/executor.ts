import { sandboxName } from "@duet/shared";
import type { WorkerConfig } from "../config.ts";
import type { Env } from "../env.ts";
import { CloudflareExecutor } from "./cloudflare.ts";
import { LocalExecutor } from "./local.ts";

/** What a sandbox reports for one command, before Duet caps and redacts it. */
export interface RawExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  durationMs: number;
  truncated: boolean;
}

/** A room's sandbox: run a command, destroy it. (Waking it ahead of time is WarmTracker's.) */
export interface SandboxExecutor {
  exec(roomId: string, cmd: string, timeoutMs: number): Promise<RawExecResult>;
  destroy(roomId: string): Promise<void>;
}

export class SandboxError extends Error {}

export function createExecutor(config: WorkerConfig, env: Env): SandboxExecutor {
  if (config.SANDBOX_PROVIDER === "local") {
    if (!config.SANDBOX_URL) throw new SandboxError("SANDBOX_PROVIDER is local but SANDBOX_URL is not set");
    return new LocalExecutor(config.SANDBOX_URL, config.SANDBOX_TOKEN);
  }
  if (!env.Sandbox) {
    throw new SandboxError("SANDBOX_PROVIDER is cloudflare but the Sandbox binding is missing: deploy with the production environment, or set SANDBOX_PROVIDER=local");
  }
  return new CloudflareExecutor(env.Sandbox);
}

export { sandboxName };
