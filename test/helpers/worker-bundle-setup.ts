import { fileURLToPath } from "node:url";
import { bundleWorker } from "./production-bundle.ts";
import { WORKER_BUNDLE_ENV } from "./worker.ts";

/** worker/src/index.ts with the request-body draining `wrangler dev` adds to its bundles. */
const DEV_ENTRY = fileURLToPath(new URL("./dev-worker-entry.js", import.meta.url));

/**
 * vitest globalSetup: bundles wrangler.toml's Worker once for the run (the same
 * `wrangler deploy --dry-run` build the deploy makes, of the top-level environment, from
 * DEV_ENTRY), so every file's Worker starts on it (startWorker in worker.ts: on Miniflare, one
 * workerd process) instead of each start bundling worker/src with esbuild again. The files'
 * processes inherit the variable. A second project's setup in the same run finds it set and
 * reuses the build.
 */
export default async function setup(): Promise<(() => void) | undefined> {
  if (process.env[WORKER_BUNDLE_ENV]) return undefined;
  const bundle = await bundleWorker(undefined, DEV_ENTRY);
  if (bundle.code !== 0 || bundle.bytes === 0) {
    bundle.remove();
    throw new Error(`bundling the Worker for the test run failed (wrangler exit ${bundle.code}):\n${bundle.output}`);
  }
  process.env[WORKER_BUNDLE_ENV] = bundle.file;
  return () => {
    delete process.env[WORKER_BUNDLE_ENV];
    bundle.remove();
  };
}
