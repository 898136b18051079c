import type { BenchStack } from "../stack.ts";
import { single, summarize, type Result } from "../stats.ts";
import { pool } from "../pool.ts";
import { healthCpuPerRequest, idleCpuPerSecond, perItem, split, workerdCpuDuring } from "./worker-cpu.ts";

/**
 * The Worker alone, driven through the shared client with an instant model and
 * no commands: messages per second across 1, 10 and 100 rooms (16 in flight),
 * and workerd's CPU per message beside the runtime's own CPU per request.
 */

const CONCURRENCY = 16;
const HEALTH_REQUESTS = 1_000;

export async function workerThroughput(stack: BenchStack, total = 400): Promise<Result[]> {
  const idle = await idleCpuPerSecond(stack);
  const base = await healthCpuPerRequest(stack, HEALTH_REQUESTS, CONCURRENCY);
  const results: Result[] = [
    single("worker: runtime CPU per request (GET /health)", "ms CPU", base.total, HEALTH_REQUESTS, `${split(base)}; both idle: ${idle.toFixed(1)} ms CPU/s`),
  ];
  for (const rooms of [1, 10, 100]) {
    const tag = `${Date.now().toString(36)}-${rooms}`;
    const send = (i: number) => stack.client.message(`cli-bench-tp-${tag}-r${i % rooms}`, { text: `message ${i}` });
    // Every room answers once first, so the batch measures rooms at work, not rooms being created.
    await pool(rooms, Math.min(rooms, CONCURRENCY), send);
    let latencies: number[] = [];
    const started = performance.now();
    const cpu = perItem(
      await workerdCpuDuring(stack, async () => {
        latencies = await pool(total, CONCURRENCY, send);
      }),
      total,
    );
    const seconds = (performance.now() - started) / 1000;
    results.push(
      single(`worker: messages/s across ${rooms} room(s)`, "msg/s", total / seconds, total, `${CONCURRENCY} in flight`),
      summarize(`worker: message latency under load, ${rooms} room(s)`, "ms", latencies, `${CONCURRENCY} in flight; queueing included`),
      single(`worker: CPU per message, ${rooms} room(s)`, "ms CPU", cpu.total, total, split(cpu)),
      single(`worker: Duet's own CPU per message, ${rooms} room(s)`, "ms CPU", cpu.total - base.total, total, "CPU per message − runtime CPU per request"),
    );
  }
  return results;
}
