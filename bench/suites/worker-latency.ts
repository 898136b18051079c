import type { BenchStack } from "../stack.ts";
import { summarize, type Result } from "../stats.ts";
import { pool } from "../pool.ts";

/**
 * Round trips one at a time, to split the bots' overhead into its parts: the
 * runtime's floor (`GET /health`), one message through the Worker with an
 * instant model, and the instant fake executor's own round trip for the `true`
 * command the one-command turns run (no shell: an HTTP answer from the runner).
 */
export async function workerLatency(stack: BenchStack, n = 200): Promise<Result[]> {
  const tag = Date.now().toString(36);
  const health = await pool(n, 1, () => fetch(`${stack.workerUrl}/health`).then((r) => r.text()));
  const send = (i: number) => stack.client.message(`cli-bench-rtt-${tag}-${i % 10}`, { text: "SAY: ok" });
  await pool(10, 1, send); // the rooms exist before timing starts
  const message = await pool(n, 1, send);
  const exec = await pool(n, 1, () =>
    fetch(`${stack.executor!.url}/api/execute`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ command: "true", sessionId: `bench-exec-${tag}`, timeoutMs: 10_000 }),
    }).then((r) => r.text()),
  );
  return [
    summarize("worker: GET /health round trip", "ms", health, "one at a time; the runtime's floor"),
    summarize("worker: message round trip", "ms", message, "one at a time, 10 rooms; instant model, no command"),
    summarize("fake executor: `true` round trip", "ms", exec, "the instant executor's own HTTP round trip; not Duet's"),
  ];
}
