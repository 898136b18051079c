import { type Stack, type StackOptions, startStack } from "../test/helpers/stack.ts";
import { childrenNamed, listenerAmong } from "./proc.ts";

/**
 * The test stack (real Worker in workerd, fake model and executor) plus the
 * pids of its two workerd processes, so CPU time can be read from /proc.
 * wrangler's unstable_startWorker runs both as children of this process: the
 * dev proxy, which listens on the Worker's URL and exists only under wrangler
 * dev, and the runtime that runs the Worker itself (as it would in production).
 * Start stacks one after another: the new children are told apart by timing.
 */
export interface BenchStack extends Stack {
  workerd: { proxy: number; runtime: number };
}

export async function startBenchStack(opts: StackOptions = {}): Promise<BenchStack> {
  const before = new Set(childrenNamed(process.pid, "workerd"));
  const stack = await startStack(opts);
  // The runtime's process can appear a moment after the Worker answers "ready" (measured: ~1 s).
  let mine: number[] = [];
  for (let tries = 0; tries < 100 && mine.length < 2; tries++) {
    mine = childrenNamed(process.pid, "workerd").filter((p) => !before.has(p));
    if (mine.length < 2) await new Promise((r) => setTimeout(r, 100));
  }
  const proxy = listenerAmong(mine, Number(new URL(stack.workerUrl).port));
  const runtime = mine.find((p) => p !== proxy);
  if (mine.length !== 2 || !proxy || !runtime) {
    await stack.stop();
    throw new Error(`expected wrangler's two workerd processes (dev proxy and runtime), found ${mine.length}`);
  }
  return Object.assign(stack, { workerd: { proxy, runtime } });
}

/** One turn in `room` as a client asks it (userId U1): the milliseconds until its answer, or an error naming the status. */
export async function sendTurn(stack: Pick<Stack, "workerUrl" | "token">, room: string, text: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${stack.workerUrl}/api/rooms/${room}/message`, {
    method: "POST",
    headers: { authorization: `Bearer ${stack.token}`, "content-type": "application/json" },
    body: JSON.stringify({ text, userId: "U1" }),
  });
  const body = await res.text();
  if (!res.ok) throw new Error(`message answered HTTP ${res.status}: ${body.slice(0, 200)}`);
  return performance.now() - t0;
}
