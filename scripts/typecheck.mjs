#!/usr/bin/env node
// Type-checks every TypeScript project of the repository: the Node side, the
// Worker and the two benchmark designs. Each pass is its own tsc process and
// they run side by side, as many at a time as the machine has cores (the
// longest first), so the check costs about the longest pass rather than the
// sum. Each pass keeps its
// incremental state under node_modules/.cache/tsc, so a second run on an
// unchanged tree is quick. Prints each pass's errors, one pass after another,
// and exits 1 when any pass failed.
import { spawn } from "node:child_process";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
const projects = ["worker/tsconfig.json", "tsconfig.json", "bench/seed-design/tsconfig.json", "bench/floor-design/tsconfig.json"];

function check(project) {
  const info = join(root, "node_modules", ".cache", "tsc", `${project.replace(/[/.]/g, "-")}.tsbuildinfo`);
  const args = [tsc, "-p", project, "--incremental", "--tsBuildInfoFile", info, "--pretty"];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", (err) => resolve({ project, code: 1, output: `${err.message}\n` }));
    child.on("close", (code) => resolve({ project, code: code ?? 1, output }));
  });
}

const results = [];
const queue = [...projects];
const lanes = Math.max(1, Math.min(availableParallelism(), projects.length));
await Promise.all(
  Array.from({ length: lanes }, async () => {
    for (let project = queue.shift(); project; project = queue.shift()) results.push(await check(project));
  }),
);

let failed = 0;
for (const project of projects) {
  const { code, output } = results.find((r) => r.project === project);
  if (code === 0) continue;
  failed++;
  process.stdout.write(`tsc -p ${project} failed:\n${output}\n`);
}
process.exit(failed ? 1 : 0);
