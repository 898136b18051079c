import type { WorkerConfig } from "../config.ts";
import type { Vars } from "../vars.ts";
import { CloudflareExecutor } from "./cloudflare.ts";
import { LocalExecutor } from "./local.ts";
import { SandboxError, type SandboxExecutor } from "./types.ts";
import { WorkspaceKeeper } from "./workspace-keeper.ts";

export function createExecutor(config: WorkerConfig, env: Vars): SandboxExecutor {
  if (config.SANDBOX_PROVIDER === "local") {
    if (!config.SANDBOX_URL) throw new SandboxError("SANDBOX_PROVIDER is local but SANDBOX_URL is not set");
    return new LocalExecutor(config.SANDBOX_URL, config.SANDBOX_TOKEN);
  }
  if (!env.Sandbox) {
    throw new SandboxError("SANDBOX_PROVIDER is cloudflare but the Sandbox binding is missing: deploy with the production environment, or set SANDBOX_PROVIDER=local");
  }
  return new CloudflareExecutor(env.Sandbox, workspaceKeeper(config, env));
}

/** Keeps Cloudflare workspaces in the WORKSPACES bucket; without one a workspace lives as long as its container. */
export function workspaceKeeper(config: WorkerConfig, env: Vars): WorkspaceKeeper | null {
  return env.WORKSPACES ? new WorkspaceKeeper(env.WORKSPACES, config.SANDBOX_WORKSPACE_MAX_BYTES) : null;
}
