import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestExecutor, waitForFile } from "../../sandbox/src/test-support.ts";
import { summarize, type Result } from "../stats.ts";

/**
 * One person's long commands against another person's `echo`, on the real executor
 * (bubblewrap, default slots): the victim's echo is timed first on an idle executor,
 * then while four channels of the same workspace, all one person's, each hold a
 * command that runs until released (a `sleep 25` that ends when the bench says so).
 * The holders are released after the samples, so the suite takes seconds, not 25 s.
 */

const HOLDERS = ["C1", "C2", "C3", "C4"].map((c) => `sandbox-slack-Tbench-${c}`);
const ATTACKER = "slack-Tbench:UMALLORY";
const VICTIM = "sandbox-slack-Tbench-C9";
const VICTIM_PERSON = "slack-Tbench:UANN";

async function echoes(ex: Awaited<ReturnType<typeof startTestExecutor>>, samples: number): Promise<number[]> {
  const waits: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    const r = await ex.exec(VICTIM, "echo here", undefined, VICTIM_PERSON);
    waits.push(performance.now() - t0);
    if (r.stdout !== "here\n") throw new Error(`the victim's echo answered ${JSON.stringify(r)}`);
  }
  return waits;
}

export async function sandboxFairSuite(samples = 30): Promise<Result[]> {
  const ex = await startTestExecutor();
  try {
    const sessionDir = (id: string) => join(ex.root, "sessions", id);
    await ex.exec(VICTIM, "echo warm", undefined, VICTIM_PERSON); // the room's first command makes its workspace
    const idle = await echoes(ex, samples);
    const held = HOLDERS.map((id) => ex.exec(id, "touch started; until [ -e release ]; do sleep 0.05; done", 120_000, ATTACKER));
    for (const id of HOLDERS) await waitForFile(sessionDir(id), "started");
    const attacked = await echoes(ex, samples);
    for (const id of HOLDERS) writeFileSync(join(sessionDir(id), "release"), "");
    await Promise.all(held);
    return [
      summarize("sandbox: a person's echo on an idle executor", "ms", idle, "real executor, default slots; the baseline for the row below"),
      summarize(
        "sandbox: a person's echo while another person's 4 rooms hold long commands",
        "ms",
        attacked,
        "same workspace, same executor, measured right after the row above",
      ),
    ];
  } finally {
    await ex.stop();
  }
}
