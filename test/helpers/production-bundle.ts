import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { gzipSync } from "node:zlib";
import { REPO_ROOT, removeDir } from "./worker.ts";

/**
 * The production Worker as `wrangler deploy` would upload it, built with
 * `wrangler deploy --dry-run --env production`. A dry run still builds the
 * container image of every `[[env.production.containers]]` table (it needs a
 * running Docker daemon, and stops without one), so the build uses a copy of
 * wrangler.toml without those tables: the image is the real deploy's job, the
 * Worker's code and bindings are what this proves.
 */

export interface ProductionBundle {
  /** wrangler's exit code and everything it printed. */
  code: number;
  output: string;
  /** The bundled Worker (index.js) and its size, raw and gzipped; 0 when the build failed. */
  file: string;
  bytes: number;
  gzipBytes: number;
  /** Removes the generated config and the bundle. */
  remove(): void;
}

/** wrangler.toml without its container tables; `main` made absolute because the copy lives elsewhere. */
export function configWithoutContainers(toml: string, root = REPO_ROOT): string {
  let skipping = false;
  const lines = toml.split("\n").filter((line) => {
    // A table header ends the previous table; only container tables are left out.
    if (line.startsWith("[")) skipping = /^\[\[(env\.[\w-]+\.)?containers\]\]\s*$/.test(line.trim());
    return !skipping;
  });
  return lines.join("\n").replace(/^main\s*=\s*"([^"]+)"/m, (_, main: string) => `main = ${JSON.stringify(join(root, main))}`);
}

export function bundleProduction(): Promise<ProductionBundle> {
  return bundleWorker("production");
}

/**
 * The Worker as wrangler bundles it for `wrangler deploy` of `wranglerEnv` (the top level when
 * undefined: what local runs and tests use), built once with `--dry-run`; from `main`
 * (an absolute path) instead of wrangler.toml's when given.
 */
export async function bundleWorker(wranglerEnv?: string, main?: string): Promise<ProductionBundle> {
  const dir = mkdtempSync(join(tmpdir(), "duet-bundle-"));
  const config = join(dir, "wrangler.toml");
  const toml = configWithoutContainers(readFileSync(join(REPO_ROOT, "wrangler.toml"), "utf8"));
  writeFileSync(config, main ? toml.replace(/^main\s*=.*$/m, `main = ${JSON.stringify(main)}`) : toml);
  const outdir = join(dir, "out");
  const wrangler = join(REPO_ROOT, "node_modules", ".bin", "wrangler");
  const args = ["deploy", "--dry-run", ...(wranglerEnv ? ["--env", wranglerEnv] : []), "--config", config, "--outdir", outdir];
  const env = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", NO_COLOR: "1" };
  const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(wrangler, args, { cwd: REPO_ROOT, env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
  // esbuild names the bundle after its entry (worker/src/index.ts: index.js).
  const file = join(outdir, `${basename(main ?? "index.js").replace(/\.[^.]+$/, "")}.js`);
  let bytes = 0;
  let gzipBytes = 0;
  try {
    const code = readFileSync(file);
    bytes = code.length;
    gzipBytes = gzipSync(code).length;
  } catch {
    // No bundle: the caller sees bytes 0 beside wrangler's output.
  }
  return { code, output, file, bytes, gzipBytes, remove: () => removeDir(dir) };
}
