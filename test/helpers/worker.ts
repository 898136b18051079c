import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { Log, LogLevel, Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions, unstable_startWorker } from "wrangler";
import { workerBindings } from "../../scripts/dev-worker.ts";

// Keep wrangler off the network and quiet in tests.
process.env.WRANGLER_SEND_METRICS = "false";
process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";

export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The Worker bundled once for a whole test run (test/helpers/worker-bundle-setup.ts sets
 * it): wrangler.toml's Worker then starts on that bundle instead of bundling worker/src
 * again for every start. Unset (benchmarks, scripts, a single file run outside the
 * suite's projects), each start bundles the source as `wrangler dev` does.
 */
export const WORKER_BUNDLE_ENV = "DUET_TEST_WORKER_BUNDLE";

/** The run's prebuilt bundle of wrangler.toml's Worker, when there is one and `config` is that file. */
function prebuiltBundle(config: string): string | undefined {
  const file = process.env[WORKER_BUNDLE_ENV];
  return file && config === join(REPO_ROOT, "wrangler.toml") && existsSync(file) ? file : undefined;
}

export interface RunningWorker {
  url: string;
  persistDir: string;
  stop(): Promise<void>;
}

/**
 * The real Worker in workerd, started from this process: on Miniflare with the run's bundle
 * when there is one, else through wrangler from source. State persists in `persistDir`, so
 * stopping and starting again with the same directory is a Worker restart that keeps each
 * room's SQLite storage.
 */
export async function startWorker(
  vars: Record<string, string>,
  persistDir?: string,
  port = 0,
  config = join(REPO_ROOT, "wrangler.toml"),
  /** A DevTools inspector for the Worker on this port (profiling); none by default. */
  inspectorPort?: number,
): Promise<RunningWorker> {
  const dir = persistDir ?? mkdtempSync(join(tmpdir(), "duet-worker-"));
  const prebuilt = prebuiltBundle(config);
  const started = prebuilt ? await startBundle(prebuilt, config, vars, dir, port, inspectorPort) : await startSource(config, vars, dir, port, inspectorPort);
  return { ...started, persistDir: dir };
}

/** wrangler's reading of each configuration, once per process: every start of a file's Worker (restarts too) reuses it. */
const readConfigs = new Map<string, ReturnType<typeof unstable_getMiniflareWorkerOptions>>();
function miniflareOptions(config: string): ReturnType<typeof unstable_getMiniflareWorkerOptions> {
  let read = readConfigs.get(config);
  if (!read) readConfigs.set(config, (read = unstable_getMiniflareWorkerOptions(config)));
  return read;
}

/**
 * The run's prebuilt bundle on Miniflare itself: one workerd process serving the Worker's own
 * port, where `unstable_startWorker` adds wrangler's dev proxy (a second workerd, every request
 * through it) and reads the entry with esbuild at each start. The Worker's options come from
 * wrangler.toml through wrangler's own reading of it, so bindings, Durable Objects and their
 * SQLite storage are those `wrangler dev` gives; state lives in `dir` as Miniflare lays it out.
 */
async function startBundle(bundle: string, config: string, vars: Record<string, string>, dir: string, port: number, inspectorPort?: number) {
  const { workerOptions } = miniflareOptions(config);
  let stderrTail = "";
  const mf = new Miniflare({
    ...(workerOptions as object),
    name: "duet",
    modules: [{ type: "ESModule", path: bundle }],
    // Modules are named from this folder, and workerd refuses a name that climbs out of it.
    modulesRoot: dirname(bundle),
    bindings: { ...(workerOptions.bindings as Record<string, unknown>), ...vars },
    host: "127.0.0.1",
    port,
    ...(inspectorPort ? { inspectorPort } : {}),
    defaultPersistRoot: dir,
    // No request for Cloudflare's `cf` object: the placeholder values (there is no internet here).
    cf: false,
    // The Worker's console and workerd's own reports go to the test's output only when asked for, as
    // wrangler's logLevel does; otherwise the end of workerd's stderr is kept for a start that fails.
    log: new Log(process.env.DUET_TEST_WORKER_LOG ? LogLevel.INFO : LogLevel.NONE),
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      if (process.env.DUET_TEST_WORKER_LOG) {
        stdout.pipe(process.stdout);
        stderr.pipe(process.stderr);
        return;
      }
      stdout.resume();
      stderr.on("data", (chunk: Buffer) => {
        stderrTail = (stderrTail + chunk.toString()).slice(-4_000);
      });
    },
  } as ConstructorParameters<typeof Miniflare>[0]);
  let url: string;
  try {
    url = (await mf.ready).toString().replace(/\/$/, "");
  } catch (err) {
    await mf.dispose().catch(() => {});
    throw new Error(`the Worker did not start: ${(err as Error).message}\n${stderrTail}`);
  }
  return { url, stop: () => mf.dispose() };
}

/** wrangler.toml's Worker (or another configuration) bundled from source and started as `wrangler dev` starts it. */
async function startSource(config: string, vars: Record<string, string>, dir: string, port: number, inspectorPort?: number) {
  const worker = await unstable_startWorker({
    config,
    bindings: workerBindings(vars),
    // Without v2 the dev server's fetch hangs on Node 20 (measured).
    build: { nodejsCompatMode: "v2" },
    dev: {
      server: { hostname: "127.0.0.1", port },
      inspector: inspectorPort ? { hostname: "127.0.0.1", port: inspectorPort } : false,
      persist: dir,
      watch: false,
      logLevel: process.env.DUET_TEST_WORKER_LOG ? "log" : "error",
    },
  });
  await worker.ready;
  const url = (await worker.url).toString().replace(/\/$/, "");
  return { url, stop: () => worker.dispose() };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
