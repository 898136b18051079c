#!/usr/bin/env node
// The whole test suite, as `npm test` runs it: the type-check and vitest side
// by side (the arguments go to vitest). Most of vitest's time is files waiting
// on Workers and bots to start, so the type-check's passes run at a lower
// priority, in the cores the tests leave idle. The type-check's errors print
// after vitest's report; the run fails when either did.
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { typecheck } from "./typecheck.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const vitest = join(root, "node_modules", "vitest", "vitest.mjs");

const checked = typecheck({ niceness: 10 });
const tested = new Promise((resolve) => {
  const child = spawn(process.execPath, [vitest, "run", ...process.argv.slice(2)], { cwd: root, stdio: "inherit" });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.on("error", (err) => (process.stderr.write(`vitest could not start: ${err.message}\n`), resolve(1)));
  // Killed by a signal: no code, and a failed run.
  child.on("close", (code) => resolve(code ?? 1));
});

const [errors, code] = await Promise.all([checked, tested]);
if (errors) process.stdout.write(`\nThe type-check failed:\n${errors}`);
else process.stdout.write("\nThe type-check passed.\n");
process.exit(code !== 0 ? code : errors ? 1 : 0);
