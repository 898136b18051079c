import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { parseTally, summarise, summaryLines, TALLY_FILE } from "./summary.ts";

/**
 * The reliability suite's tally: a temporary directory every test file appends
 * its observations to (tally.ts). The teardown runs once all files are done,
 * prints the four totals and fails the run when a message was lost.
 */
export default function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), "duet-reliability-"));
  project.provide("reliabilityTallyDir", dir);
  return () => {
    let text = "";
    try {
      text = readFileSync(join(dir, TALLY_FILE), "utf8");
    } catch {
      // No file: no test recorded anything (e.g. every test was filtered out).
    }
    rmSync(dir, { recursive: true, force: true });
    const summary = summarise(parseTally(text));
    const lines = summaryLines(summary);
    console.log(`\n${lines.map((l) => `[reliability] ${l}`).join("\n")}\n`);
    if (summary.lost.length > 0) {
      // vitest 4 logs an error thrown by a global teardown but still exits 0; the exit code must say it too.
      process.exitCode = 1;
      const named = summary.lost.slice(0, 10).join(", ");
      const more = summary.lost.length > 10 ? ` and ${summary.lost.length - 10} more` : "";
      throw new Error(`reliability: ${summary.lost.length} message(s) sent and never answered: ${named}${more}`);
    }
  };
}
