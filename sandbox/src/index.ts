import type { AddressInfo } from "node:net";
import { loadConfig, type ExecutorConfig } from "./config.ts";
import { Executor, StartupError } from "./executor.ts";
import { lockRoot } from "./root-lock.ts";
import { createExecutorServer } from "./server.ts";

export { ConfigError, loadConfig, type ExecutorConfig } from "./config.ts";
export { StartupError, unenforceableNetwork } from "./executor.ts";

export interface RunningExecutor {
  url: string;
  port: number;
  root: string;
  isolation: "bwrap" | "none";
  /** SANDBOX_NETWORK as the executor applies it. */
  network: ExecutorConfig["network"]["network"];
  /** What is capped per room, as the start-up line says it. */
  limits: string;
  close(): Promise<void>;
}

/**
 * Starts the local sandbox executor in this process: `pnpm dev` and the e2e tests
 * use it directly, `main.ts` is the CLI around it. Settings not given come from the
 * environment (see config.ts). Rejects with a StartupError (one line) when it
 * cannot sandbox, e.g. bubblewrap is missing.
 */
export async function startExecutor(overrides: Partial<ExecutorConfig> = {}, log: (line: string) => void = (l) => console.warn(l)): Promise<RunningExecutor> {
  const config: ExecutorConfig = { ...loadConfig(process.env), ...overrides };
  // Before anything touches the root: a second executor would unmount the first one's disks when it stops.
  const lock = lockRoot(config.root);
  if ("refused" in lock) throw new StartupError(lock.refused);
  const executor = new Executor(config);
  try {
    await executor.start();
  } catch (err) {
    lock.release();
    throw err;
  }
  for (const warning of executor.warnings) log(`[sandbox] WARNING: ${warning}`);

  const server = createExecutorServer(executor, config.token);
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err) => void executor.stopAll().finally(() => (lock.release(), reject(err))));
    server.listen(config.port, config.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    root: config.root,
    isolation: config.isolation,
    network: config.network.network,
    limits: executor.limits,
    close: () =>
      (closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await executor.stopAll();
        server.closeAllConnections();
        await closed;
        lock.release();
      })()),
  };
}
