import { randomBytes } from "node:crypto";
import { WorkerClient } from "@duet/shared";
import { startFakeExecutor, type FakeExecutor } from "../fakes/executor.ts";
import { startFakeModel, type FakeModel } from "../fakes/model.ts";
import { runningUntilStopped } from "./left-running.ts";
import { quietPort } from "./ports.ts";
import { removeDir, startWorker, type RunningWorker } from "./worker.ts";

export interface StackOptions {
  /** Extra Worker variables (override the defaults below). */
  vars?: Record<string, string>;
  /** "fake" (default): the fake executor; "real": the caller passes SANDBOX_URL in vars; "none": no executor. */
  executor?: "fake" | "real" | "none";
  /** The fake executor answers every command at once without a shell (benchmarks). */
  instantExecutor?: boolean;
  /** Another wrangler configuration for the Worker (default: the repository's wrangler.toml). */
  config?: string;
  /** A DevTools inspector for the Worker on this port (bench/room-profile.ts); none by default. */
  inspectorPort?: number;
}

export interface Stack {
  workerUrl: string;
  token: string;
  /** The Worker's state on disk (its persist folder): every room's SQLite files, WAL included. */
  persistDir: string;
  model: FakeModel;
  executor: FakeExecutor | null;
  client: WorkerClient;
  /** Stops the Worker and starts it again on the same state, as a redeploy would. */
  restartWorker(): Promise<void>;
  /** Stops only the Worker (to test "Worker down"); restartWorker brings it back. */
  stopWorker(): Promise<void>;
  stop(): Promise<void>;
}

/** The real Worker in workerd, wired to a fake model and (by default) a fake executor on 127.0.0.1. */
export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const token = randomBytes(16).toString("hex");
  const model = await startFakeModel();
  const executor = (opts.executor ?? "fake") === "fake" ? await startFakeExecutor(0, { instant: opts.instantExecutor }) : null;
  const vars: Record<string, string> = {
    DUET_API_TOKEN: token,
    MODEL_PROVIDER: "openai",
    MODEL: "fake-model",
    OPENAI_BASE_URL: model.baseUrl,
    SANDBOX_PROVIDER: "local",
    MODEL_TIMEOUT_MS: "5000",
    COMMAND_TIMEOUT_MS: "10000",
    ...(executor ? { SANDBOX_URL: executor.url } : {}),
    ...opts.vars,
  };
  // A port outside the ephemeral range, so a restart can take the same port back.
  let worker: RunningWorker | null = await startWorker(vars, undefined, await quietPort(), opts.config, opts.inspectorPort);
  const persistDir = worker.persistDir;
  const stack: Stack = {
    workerUrl: worker.url,
    token,
    persistDir,
    model,
    executor,
    client: new WorkerClient({ baseUrl: worker.url, token, timeoutMs: 30_000 }),
    async stopWorker() {
      await worker?.stop();
      worker = null;
    },
    async restartWorker() {
      await worker?.stop();
      // Same port, so bots configured with the old URL reach the new Worker.
      const port = new URL(stack.workerUrl).port;
      worker = await startWorker(vars, persistDir, Number(port), opts.config, opts.inspectorPort);
    },
    async stop() {
      await worker?.stop();
      await model.close();
      await executor?.close();
      removeDir(persistDir);
    },
  };
  return runningUntilStopped("a Worker (startStack)", stack);
}
