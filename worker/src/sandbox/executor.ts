import type { WorkerConfig } from "../config.ts";
import type { Vars } from "../vars.ts";
import { CloudflareExecutor } from "./cloudflare.ts";
import { LocalExecutor } from "./local.ts";
import { SandboxError, type SandboxExecutor } from "./types.ts";
import { WarmTracker } from "./warm-tracker.ts";
import { WorkspaceKeeper } from "./workspace-keeper.ts";
import { WorkspaceSaves } from "./workspace-saves.ts";

/** A room's sandbox, or why it has none (the configuration names the problem). */
export interface ExecutorSlot {
  executor: WarmTracker | null;
  problem?: string;
  /** Where the sandbox's workspace must be saved to outlive it (production). */
  saves?: WorkspaceSaves;
}

/** The room's sandbox as its turns use it: woken ahead of a command, its workspace saved where it must be; or the configuration's problem. */
export function openExecutorSlot(config: WorkerConfig, env: Vars, roomId: string): ExecutorSlot {
  try {
    const executor = new WarmTracker(createExecutor(config, env));
    const save = executor.save;
    return { executor, ...(save ? { saves: new WorkspaceSaves((written) => save(roomId, written)) } : {}) };
  } catch (err) {
    if (!(err instanceof SandboxError)) throw err;
    return { executor: null, problem: err.message };
  }
}

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
