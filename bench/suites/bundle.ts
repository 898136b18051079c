import { bundleProduction } from "../../test/helpers/production-bundle.ts";
import { single, type Result } from "../stats.ts";

/**
 * The production Worker's size as `wrangler deploy --env production` would upload
 * it (a dry run, with the container image left to the real deploy; see
 * test/helpers/production-bundle.ts): the bundle raw and gzipped.
 */
export async function bundleSize(): Promise<Result[]> {
  const bundle = await bundleProduction();
  try {
    if (bundle.code !== 0 || bundle.bytes === 0) {
      const last = bundle.output.trim().split("\n").filter((l) => l.trim()).slice(-3).join(" ");
      throw new Error(`wrangler deploy --dry-run --env production failed (exit ${bundle.code}): ${last}`);
    }
    // wrangler's own "Total Upload" line, to show beside ours (it counts every module it uploads).
    const upload = /Total Upload: ([\d.]+ KiB) \/ gzip: ([\d.]+ KiB)/.exec(bundle.output);
    const said = upload ? `; wrangler: ${upload[1]} / gzip ${upload[2]}` : "";
    return [
      single("worker: production bundle size", "KiB", bundle.bytes / 1024, 1, `worker/src and its dependencies as one index.js${said}`),
      single("worker: production bundle size, gzipped", "KiB", bundle.gzipBytes / 1024, 1, "gzip level 6, as it travels"),
    ];
  } finally {
    bundle.remove();
  }
}
