import { cpuMs } from "../proc.ts";
import { pool } from "../pool.ts";
import type { BenchStack } from "../stack.ts";

/**
 * CPU time the Worker's processes spend, read from /proc before and after a
 * batch: the honest per-request figure under `wrangler dev`, where the runtime's
 * own work (the dev proxy, request plumbing) is a large share of every request.
 */

export interface WorkerdCpu {
  /** wrangler's dev proxy: forwards each request; not there in production. */
  proxy: number;
  /** The workerd that runs the Worker and its Durable Objects. */
  runtime: number;
  total: number;
}

/** Runs `fn` and returns the CPU milliseconds both workerd processes spent meanwhile. */
export async function workerdCpuDuring(stack: BenchStack, fn: () => Promise<unknown>): Promise<WorkerdCpu> {
  const p0 = cpuMs(stack.workerd.proxy);
  const r0 = cpuMs(stack.workerd.runtime);
  await fn();
  const proxy = cpuMs(stack.workerd.proxy) - p0;
  const runtime = cpuMs(stack.workerd.runtime) - r0;
  return { proxy, runtime, total: proxy + runtime };
}

export const perItem = (c: WorkerdCpu, n: number): WorkerdCpu => ({ proxy: c.proxy / n, runtime: c.runtime / n, total: c.total / n });

export const split = (c: WorkerdCpu) => `dev proxy ${c.proxy.toFixed(2)} + runtime ${c.runtime.toFixed(2)}`;

/** The runtime's own CPU per request: `GET /health` runs no Duet code but answering "ok". */
export async function healthCpuPerRequest(stack: BenchStack, total: number, concurrency: number): Promise<WorkerdCpu> {
  const health = () => fetch(`${stack.workerUrl}/health`).then((r) => r.text());
  await pool(50, concurrency, health);
  return perItem(await workerdCpuDuring(stack, () => pool(total, concurrency, health)), total);
}

/** CPU both workerd processes use per second while nothing is asked of them. */
export async function idleCpuPerSecond(stack: BenchStack, ms = 2_000): Promise<number> {
  return (await workerdCpuDuring(stack, () => new Promise((r) => setTimeout(r, ms)))).total / (ms / 1000);
}
