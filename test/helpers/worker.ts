import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { unstable_startWorker } from "wrangler";
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
function prebuiltEntry(config: string): string | undefined {
  const file = process.env[WORKER_BUNDLE_ENV];
  return file && config === join(REPO_ROOT, "wrangler.toml") && existsSync(file) ? file : undefined;
}

export interface RunningWorker {
  url: string;
  persistDir: string;
  stop(): Promise<void>;
}

/**
 * The real Worker under wrangler/workerd, in this process. State persists in
 * `persistDir`, so stopping and starting again with the same directory is a
 * Worker restart that keeps each room's SQLite storage.
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
  const bindings = workerBindings(vars);
  const prebuilt = prebuiltEntry(config);
  const worker = await unstable_startWorker({
    config,
    bindings,
    // The same source already bundled by wrangler: started as it is, without esbuild (about 0.7 CPU s a start).
    // Its entry is one line naming the bundle's exports; the bundle is the `.mjs` module beside it.
    ...(prebuilt ? { entrypoint: prebuilt } : {}),
    // Without v2 the dev server's fetch hangs on Node 20 (measured).
    build: { nodejsCompatMode: "v2", ...(prebuilt ? { bundle: false, moduleRules: [{ type: "ESModule", globs: ["**/*.mjs"] }] } : {}) },
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
  return {
    url,
    persistDir: dir,
    stop: async () => {
      await worker.dispose();
    },
  };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
