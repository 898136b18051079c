#!/usr/bin/env node
// Type-checks every TypeScript project of the repository: the Node side, the
// Worker and the two benchmark designs. Each pass is its own tsc process and
// they run side by side, as many at a time as the machine has cores (the
// longest first), so the check costs about the longest pass rather than the
// sum. Each pass keeps its incremental state under node_modules/.cache/tsc, so
// a second run on an unchanged tree is quick. Run directly, it prints each
// failed pass's errors, one pass after another, and exits 1 when any failed;
// scripts/test.mjs runs it beside the tests.
import { spawn } from "node:child_process";
import { availableParallelism, setPriority } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
const projects = ["worker/tsconfig.json", "tsconfig.json", "bench/seed-design/tsconfig.json", "bench/floor-design/tsconfig.json"];

function check(project, niceness) {
  const info = join(root, "node_modules", ".cache", "tsc", `${project.replace(/[/.]/g, "-")}.tsbuildinfo`);
  const args = [tsc, "-p", project, "--incremental", "--tsBuildInfoFile", info, "--pretty"];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    if (niceness && child.pid) {
      try {
        setPriority(child.pid, niceness);
      } catch {
        // Left at the normal priority: only slower beside the tests.
      }
    }
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", (err) => resolve({ project, code: 1, output: `${err.message}\n` }));
    child.on("close", (code) => resolve({ project, code: code ?? 1, output }));
  });
}

/**
 * Runs every pass; resolves with the errors of the failed ones, in the
 * projects' order ("" when all passed). `niceness` lowers the passes'
 * scheduling priority (beside the tests, they take the cores the tests leave idle).
 */
export async function typecheck({ niceness = 0 } = {}) {
  const results = [];
  const queue = [...projects];
  const lanes = Math.max(1, Math.min(availableParallelism(), projects.length));
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      for (let project = queue.shift(); project; project = queue.shift()) results.push(await check(project, niceness));
    }),
  );
  return projects
    .map((project) => results.find((r) => r.project === project))
    .filter((r) => r.code !== 0)
    .map((r) => `tsc -p ${r.project} failed:\n${r.output}\n`)
    .join("");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const errors = await typecheck();
  process.stdout.write(errors);
  process.exit(errors ? 1 : 0);
}
