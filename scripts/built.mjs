#!/usr/bin/env node
// Before `npm run start:*`: the bots run from dist/, which `npm run build` makes.
// Without it, one line saying so instead of Node's MODULE_NOT_FOUND stack.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const bundle = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "bots", "duet-bot.js");
if (!existsSync(bundle)) {
  console.error("dist/bots/duet-bot.js is missing: run `npm run build` first");
  process.exit(1);
}
