import { startBenchStack, type BenchStack } from "../stack.ts";
import { summarize, type Result } from "../stats.ts";
import { pool } from "../pool.ts";

/**
 * The sandbox's cold start hidden behind the model: a model that takes 1 s and
 * a sandbox that takes 2 s to start, with SANDBOX_PREWARM on and off, two
 * Workers side by side in one run. Each sample is a new room (a cold sandbox)
 * asking for one command; the ratio is the turn's time over
 * max(model, cold start) + the command's own time, the best a turn can do.
 */

const MODEL_MS = 1_000;
const COLD_START_MS = 2_000;

async function samples(stack: BenchStack, mode: string, n: number): Promise<{ e2e: number[]; ratio: number[] }> {
  const e2e: number[] = [];
  const ratio: number[] = [];
  const tag = Date.now().toString(36);
  // Four rooms at a time: the delays are waits, not CPU, so this does not change the figures.
  await pool(n, 4, async (i) => {
    const t0 = performance.now();
    const res = await stack.client.message(`cli-bench-warm-${mode}-${tag}-${i}`, { text: "SAY: listing <run>true</run>" });
    const ms = performance.now() - t0;
    const command = res.runs[0]?.durationMs ?? 0;
    e2e.push(ms);
    ratio.push(ms / (Math.max(MODEL_MS, COLD_START_MS) + command));
  });
  return { e2e, ratio };
}

export async function prewarmSuite(n = 16): Promise<Result[]> {
  const stacks: BenchStack[] = [];
  try {
    for (const v of ["on", "off"]) stacks.push(await startBenchStack({ vars: { SANDBOX_PREWARM: v } }));
    for (const s of stacks) {
      // A new Worker's first requests start its isolate (seconds under wrangler dev); that is not the turn being measured.
      await s.client.message(`cli-bench-warm-up-${Date.now().toString(36)}`, { text: "SAY: warm <run>true</run>" });
      s.model.setDelay(MODEL_MS);
      s.executor?.setColdStart(COLD_START_MS);
    }
    const [on, off] = await Promise.all([samples(stacks[0], "on", n), samples(stacks[1], "off", n)]);
    const setup = `model ${MODEL_MS / 1000} s, sandbox cold start ${COLD_START_MS / 1000} s, one command`;
    return [
      summarize("prewarm on: end-to-end turn", "ms", on.e2e, setup),
      summarize("prewarm off: end-to-end turn", "ms", off.e2e, setup),
      summarize("prewarm on: ratio to max(model, cold start) + command", "×", on.ratio, "target ≤ 1.25×"),
      summarize("prewarm off: ratio to max(model, cold start) + command", "×", off.ratio, "expected ≥ 1.4× (model and start in sequence)"),
    ];
  } finally {
    await Promise.all(stacks.map((s) => s.stop()));
  }
}
