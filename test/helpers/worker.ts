import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { unstable_startWorker } from "wrangler";

// Keep wrangler off the network and quiet in tests.
process.env.WRANGLER_SEND_METRICS = "false";
process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";

export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));

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
  const bindings = Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, { type: "plain_text" as const, value: v }]));
  const worker = await unstable_startWorker({
    config,
    bindings,
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
