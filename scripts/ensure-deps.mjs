#!/usr/bin/env node
// Installs the workspace's dependencies when they are missing or the lockfile
// changed since the last install, so `npm run dev` and `npm test` work on a fresh
// clone with only Node and npm. pnpm runs through npx (corepack's download fails
// on some machines).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const stamp = join(root, "node_modules", ".duet-installed");
const hash = createHash("sha256").update(readFileSync(join(root, "pnpm-lock.yaml"))).digest("hex");

if (!existsSync(stamp) || readFileSync(stamp, "utf8") !== hash) {
  console.log("duet: installing dependencies (npx pnpm@12.4.2 install --frozen-lockfile)...");
  execFileSync("npx", ["-y", "pnpm@12.4.2", "install", "--frozen-lockfile"], { cwd: root, stdio: "inherit" });
  writeFileSync(stamp, hash);
}
