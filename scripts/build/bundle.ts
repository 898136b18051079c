import { build, type Metafile, type Plugin } from "esbuild";
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

/**
 * Bolt's receivers Duet never builds (buildReceiver makes an HTTPReceiver or a
 * SocketModeReceiver): bolt's index requires them at load all the same, and
 * ExpressReceiver brings express with its ~30 modules (mime-db's table among
 * them), about 330 KB of the Slack bundle's text, evaluated and kept at start.
 * Each is left out as a class that says so if it is ever constructed.
 */
const UNUSED_BOLT_RECEIVERS = ["ExpressReceiver", "AwsLambdaReceiver"];

const withoutUnusedReceivers: Plugin = {
  name: "without-unused-bolt-receivers",
  setup(b) {
    const filter = new RegExp(`^\\./receivers/(${UNUSED_BOLT_RECEIVERS.join("|")})$`);
    b.onResolve({ filter }, (args) => (/@slack[\\/]bolt[\\/]dist[\\/]index\.js$/.test(args.importer) ? { path: args.path.slice("./receivers/".length), namespace: "unbundled-receiver" } : undefined));
    b.onLoad({ filter: /.*/, namespace: "unbundled-receiver" }, (args) => ({
      contents: `class ${args.path} { constructor() { throw new Error("bolt's ${args.path} is not in Duet's bundle (the bots use HTTPReceiver or SocketModeReceiver)"); } }\nmodule.exports = { __esModule: true, default: ${args.path} };\n`,
      loader: "js",
    }));
  },
};

/** Writes the bundles into `outDir`; answers what went into them (esbuild's metafile: each input and what it imports, how). */
export async function bundle(outDir: string, entries: Record<string, string> = BOT_ENTRIES): Promise<Metafile> {
  rmSync(outDir, { recursive: true, force: true });
  const result = await build({
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
    plugins: [withoutUnusedReceivers],
    metafile: true,
  });
  return result.metafile;
}
