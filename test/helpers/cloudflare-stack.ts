import { join } from "node:path";
import type { ExecutorConfig } from "@duet/sandbox";
import { startSandboxStack, type SandboxStack } from "./sandbox-stack.ts";
import type { Stack } from "./stack.ts";
import { REPO_ROOT } from "./worker.ts";

/** The Worker with SANDBOX_PROVIDER=cloudflare over the stand-in container (worker/test/sandbox-stand-in/). */
export const STAND_IN_CONFIG = join(REPO_ROOT, "worker", "test", "sandbox-stand-in", "wrangler.toml");

/** The real Worker, the real @cloudflare/sandbox SDK and its Sandbox object, the bubblewrap executor as the container, a local R2 bucket. */
export async function startCloudflareStack(vars: Record<string, string> = {}, executor?: Partial<ExecutorConfig>): Promise<SandboxStack> {
  const started = await startSandboxStack({
    config: STAND_IN_CONFIG,
    executor,
    wire: ({ url, token }) => ({ SANDBOX_PROVIDER: "cloudflare", CONTAINER_STAND_IN_URL: url, SANDBOX_TOKEN: token, ...vars }),
  });
  // The isolate, the SDK's first container and the local bucket start here, under the hook's
  // deadline, so no test's own deadline carries them (seconds on a loaded machine).
  await started.stack.client.exec("cf-stack-warm-up", { cmd: "echo warm > warm.txt" });
  return started;
}

/** A stand-in test route (`/_stand-in/<what>`, see worker/test/sandbox-stand-in/entry.ts); fails on anything but a 2xx. */
export async function standIn(stack: Stack, what: string, params: Record<string, string> = {}): Promise<Response> {
  const res = await fetch(`${stack.workerUrl}/_stand-in/${what}?${new URLSearchParams(params)}`);
  if (!res.ok) throw new Error(`/_stand-in/${what} answered ${res.status}: ${await res.text()}`);
  return res;
}

/** The workspaces saved in the stand-in's R2 bucket. */
export async function savedWorkspaces(stack: Stack): Promise<{ key: string; size: number; etag: string }[]> {
  return (await standIn(stack, "saved")).json() as Promise<{ key: string; size: number; etag: string }[]>;
}
