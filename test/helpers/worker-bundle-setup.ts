import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleWorker } from "./production-bundle.ts";
import { WORKER_BUNDLE_ENV } from "./worker.ts";

/** worker/src/index.ts with the request-body draining `wrangler dev` adds to its bundles. */
const DEV_ENTRY = fileURLToPath(new URL("./dev-worker-entry.js", import.meta.url));

/**
 * vitest globalSetup: bundles wrangler.toml's Worker once for the run (the same
 * `wrangler deploy --dry-run` build the deploy makes, of the top-level environment, from
 * DEV_ENTRY), so every file's Worker starts on it (startWorker in worker.ts) instead of each
 * start bundling worker/src with esbuild again. The files' processes inherit the variable.
 * A second project's setup in the same run finds it set and reuses the build.
 */
export default async function setup(): Promise<(() => void) | undefined> {
  if (process.env[WORKER_BUNDLE_ENV]) return undefined;
  const bundle = await bundleWorker(undefined, DEV_ENTRY);
  if (bundle.code !== 0 || bundle.bytes === 0) {
    bundle.remove();
    throw new Error(`bundling the Worker for the test run failed (wrangler exit ${bundle.code}):\n${bundle.output}`);
  }
  process.env[WORKER_BUNDLE_ENV] = smallEntry(bundle.file);
  return () => {
    delete process.env[WORKER_BUNDLE_ENV];
    bundle.remove();
  };
}

/**
 * The entry each start is given: a one-line module beside the bundle that re-exports the bundle's
 * exports by name. Every start reads its entry with esbuild to learn its format and exports
 * (wrangler's `guessWorkerFormat`, even with `bundle: false`): about 0.4 CPU s for the 3.6 MB
 * bundle, nothing for this line. The bundle, renamed `worker.mjs`, is a second module of the Worker,
 * which a start takes from its entry's folder by the `.mjs` rule `startWorker` gives it. Returns the
 * bundle itself when its exports cannot be read (a start then only costs more).
 */
export function smallEntry(file: string): string {
  const code = readFileSync(file, "utf8");
  // esbuild ends an ES module bundle with one `export { a, b as default };` (before its legal comments).
  const clause = /\nexport \{([^}]*)\};\n/g;
  let last: RegExpExecArray | null = null;
  for (let m = clause.exec(code); m; m = clause.exec(code)) last = m;
  if (!last) return file;
  const names = last[1].split(",").map((part) => part.trim().split(/\s+as\s+/).at(-1)!).filter(Boolean);
  if (!names.every((name) => /^[A-Za-z_$][\w$]*$/.test(name))) return file;
  renameSync(file, join(dirname(file), "worker.mjs"));
  const entry = join(dirname(file), "entry.js");
  writeFileSync(entry, `export { ${names.join(", ")} } from "./worker.mjs";\n`);
  return entry;
}
