import { writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startStack } from "../test/helpers/stack.ts";
import type { Result } from "./stats.ts";
import { storageCost, throughput } from "./suites/worker.ts";

/**
 * `pnpm bench`: every benchmark against the real Worker (and bots) with fake
 * Slack, Discord, model and executor. Prints a table and writes results.json
 * and RESULTS.md. Benchmarks report; they never fail the test suite.
 */
const here = fileURLToPath(new URL(".", import.meta.url));

async function main() {
  const results: Result[] = [];
  const stack = await startStack();
  try {
    results.push(...(await storageCost(stack)));
    // Warm the isolate once so the first figure does not carry start-up.
    await throughput(stack, 1, 20);
    for (const rooms of [1, 10, 100]) results.push(await throughput(stack, rooms, 300));
  } finally {
    await stack.stop();
  }
  report(results);
}

function report(results: Result[]) {
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  const date = new Date().toISOString();
  const rows = results.map((r) => `| ${r.name} | ${r.median} | ${r.p99} | ${r.unit} | ${r.n} | ${r.note ?? ""} |`);
  const table = ["| benchmark | median | p99 | unit | n | note |", "| --- | ---: | ---: | --- | ---: | --- |", ...rows].join("\n");
  console.log(`\n${table}\n`);
  writeFileSync(join(here, "results.json"), `${JSON.stringify({ date, machine, results }, null, 2)}\n`);
  writeFileSync(join(here, "RESULTS.md"), `# Benchmark results\n\nMeasured ${date} on ${machine}, in one run of \`pnpm bench\`.\n\n${table}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
