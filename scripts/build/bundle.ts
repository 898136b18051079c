import { build } from "esbuild";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The bots as plain JavaScript: one ES module bundle per entry, with their
 * npm dependencies inside, so `node` runs them without tsx and without a
 * node_modules folder next to them (what the container image copies is the
 * output folder alone).
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Output name (without .js) → source file, relative to the repository root. */
export const BOT_ENTRIES: Record<string, string> = {
  "duet-bot": "bots/duet-bot.ts",
  "slack/main": "bots/slack/src/main.ts",
  // The Slack bot's ack front runs in a thread of its own, from its own file beside slack/main (ACK_FRONT_BUNDLE).
  "slack/ack-front": "bots/slack/src/ack-front/thread.ts",
  "discord/main": "bots/discord/src/main.ts",
  "discord/shards": "bots/discord/src/shards.ts",
  "discord/register": "bots/discord/src/register-main.ts",
};

/**
 * Optional native helpers the libraries try to load and do without: ws's
 * bufferutil and utf-8-validate, discord.js's zlib-sync. Left as imports that
 * fail at run time, which the libraries catch.
 */
const OPTIONAL = ["bufferutil", "utf-8-validate", "zlib-sync", "@discordjs/voice"];

export async function bundle(outDir: string, entries: Record<string, string> = BOT_ENTRIES): Promise<void> {
  rmSync(outDir, { recursive: true, force: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: Object.fromEntries(Object.entries(entries).map(([out, src]) => [out, src])),
    outdir: outDir,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    // CommonJS dependencies call require(); an ES module has none of its own.
    banner: { js: "import { createRequire as __duetRequire } from 'node:module'; const require = __duetRequire(import.meta.url);" },
    external: OPTIONAL,
    // Shared chunks would be loaded by every bot; each bundle holds only what its bot runs.
    splitting: false,
    sourcemap: "linked",
    legalComments: "none",
    minify: true,
    keepNames: true,
    logLevel: "warning",
  });
}
