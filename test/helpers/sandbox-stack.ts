import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startExecutor, type ExecutorConfig, type RunningExecutor } from "@duet/sandbox";
import { runningUntilStopped } from "./left-running.ts";
import { startStack, type Stack } from "./stack.ts";

export interface SandboxStack {
  stack: Stack;
  executor: RunningExecutor;
  /** The executor's root: workspaces are under sessions/<sessionId>. */
  root: string;
  /** The executor's SANDBOX_TOKEN, for calls straight to it. */
  executorToken: string;
  stop(): Promise<void>;
}

/**
 * The real Worker with the real bubblewrap executor, as `pnpm dev` runs them.
 * `wire` gives the Worker variables that point it at the executor (by default
 * the local provider's SANDBOX_URL and SANDBOX_TOKEN).
 */
export async function startSandboxStack(
  opts: {
    wire?: (executor: { url: string; token: string }) => Record<string, string>;
    config?: string;
    /** Executor settings besides port, root and token (e.g. a small SANDBOX_WORKSPACE_MAX_BYTES). */
    executor?: Partial<ExecutorConfig>;
  } = {},
): Promise<SandboxStack> {
  const root = mkdtempSync(join(tmpdir(), "duet-sandbox-stack-"));
  const token = randomBytes(16).toString("hex");
  const executor = await startExecutor({ ...opts.executor, port: 0, root, token }, () => {});
  const wire = opts.wire ?? (({ url }) => ({ SANDBOX_URL: url, SANDBOX_TOKEN: token }));
  const stack = await startStack({ executor: "real", config: opts.config, vars: wire({ url: executor.url, token }) });
  return runningUntilStopped("a Worker with the bubblewrap executor (startSandboxStack)", {
    stack,
    executor,
    root,
    executorToken: token,
    async stop() {
      await stack.stop();
      await executor.close();
      rmSync(root, { recursive: true, force: true });
    },
  });
}
