import { DuetError } from "@duet/shared";
import type { WorkerConfig } from "../config.ts";
import { workspaceKeeper } from "../sandbox/executor.ts";
import type { Vars } from "../vars.ts";
import { CloudflareFiles } from "./cloudflare-files.ts";
import { LocalFiles } from "./local-files.ts";
import type { WorkspaceFiles } from "./types.ts";

/** The configured provider's files API, or the 503 a person can act on when it has none. */
export function workspaceFiles(config: WorkerConfig, env: Vars): WorkspaceFiles {
  if (config.SANDBOX_PROVIDER === "local") {
    if (!config.SANDBOX_URL) throw new DuetError("sandbox_error", "SANDBOX_PROVIDER is local but SANDBOX_URL is not set", { status: 503 });
    return new LocalFiles(config.SANDBOX_URL, config.SANDBOX_TOKEN);
  }
  if (!env.Sandbox) throw new DuetError("sandbox_error", "SANDBOX_PROVIDER is cloudflare but the Sandbox binding is missing", { status: 503 });
  return new CloudflareFiles(env.Sandbox, workspaceKeeper(config, env));
}
