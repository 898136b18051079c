import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestExecutor, waitForFile } from "../../sandbox/src/test-support.ts";
import { summarize, type Result } from "../stats.ts";

/**
 * One person's long commands against another room's `echo`, on the real executor
 * (bubblewrap, default slots): four channels of one workspace each hold a command
 * that runs until released (a `sleep 25` that ends when the bench says so), and a
 * room of another workspace times its `echo`, answer included, while they run. The
 * holders are released after the samples, so the suite takes seconds, not 25 s.
 */

const HOLDERS = ["C1", "C2", "C3", "C4"].map((c) => `sandbox-slack-Tbench-${c}`);
const VICTIM = "sandbox-discord-Gbench-C1";

export async function sandboxFairSuite(samples = 30): Promise<Result[]> {
  const ex = await startTestExecutor();
  try {
    const sessionDir = (id: string) => join(ex.root, "sessions", id);
    const held = HOLDERS.map((id) => ex.exec(id, "touch started; until [ -e release ]; do sleep 0.05; done", 120_000));
    for (const id of HOLDERS) await waitForFile(sessionDir(id), "started");
    const waits: number[] = [];
    await ex.exec(VICTIM, "echo warm"); // the room's first command makes its workspace
    for (let i = 0; i < samples; i++) {
      const t0 = performance.now();
      const r = await ex.exec(VICTIM, "echo here");
      waits.push(performance.now() - t0);
      if (r.stdout !== "here\n") throw new Error(`the victim's echo answered ${JSON.stringify(r)}`);
    }
    for (const id of HOLDERS) writeFileSync(join(sessionDir(id), "release"), "");
    await Promise.all(held);
    return [summarize("sandbox: another room's echo while 4 rooms hold long commands", "ms", waits, "real executor, default slots; the holders are four channels of one workspace")];
  } finally {
    await ex.stop();
  }
}
