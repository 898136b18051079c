import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpuMs } from "./proc.ts";
import { startBenchStack } from "./stack.ts";
import { percentile } from "./stats.ts";

/**
 * A room's first turn, in the Worker alone: N first messages to N new rooms
 * (one per channel, as N Slack channels would make) sent at once, streamed as
 * the bots ask them. Prints the time to the stream's headers and to its first
 * words (median, p99), and the runtime workerd's CPU per first turn; then
 * the same for a second turn in each room, which finds it made.
 * With `--fsyncs` (strace on PATH), also the runtime's fsync calls per turn:
 * each commit of a room's SQLite file is one, and local workerd runs them on
 * the thread that runs the rooms, so they are wall time no CPU figure shows.
 *
 *   npx tsx bench/new-rooms.ts [rooms=200] [--fsyncs]
 */

const FSYNCS = process.argv.includes("--fsyncs");
const N = Number(process.argv.slice(2).find((a) => !a.startsWith("--")) ?? 200);

/** fsync calls `pid` makes while `fn` runs, counted by strace (attached first, detached after). */
async function fsyncsDuring(pid: number, fn: () => Promise<void>): Promise<number> {
  const out = `/tmp/duet-new-rooms-strace-${process.pid}.txt`;
  const strace = spawn("strace", ["-c", "-f", "-e", "trace=fsync,fdatasync", "-o", out, "-p", String(pid)], { stdio: ["ignore", "ignore", "pipe"] });
  let said = "";
  strace.stderr.on("data", (d: Buffer) => (said += d.toString()));
  // Attached once it says so for each of the runtime's threads.
  for (let i = 0; i < 100 && !/attached/.test(said); i++) await new Promise((r) => setTimeout(r, 50));
  if (!/attached/.test(said)) throw new Error(`strace did not attach to the runtime: ${said.trim() || "no word from it"}`);
  await new Promise((r) => setTimeout(r, 500));
  await fn();
  const exited = new Promise((r) => strace.on("exit", r));
  strace.kill("SIGINT");
  await exited;
  const rows = readFileSync(out, "utf8").split("\n").filter((l) => /\b(fsync|fdatasync)\s*$/.test(l));
  return rows.reduce((n, l) => n + Number(l.trim().split(/\s+/)[3]), 0);
}

async function firstTurn(url: string, token: string, room: string): Promise<{ headers: number; words: number }> {
  const t0 = performance.now();
  const res = await fetch(`${url}/api/rooms/${room}/message`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ text: "SAY: ok", userId: "U1" }),
  });
  const headers = performance.now() - t0;
  if (!res.ok) throw new Error(`HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`);
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let seen = "";
  let words = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    seen += dec.decode(value, { stream: true });
    if (!words && /event: (text|delta)/.test(seen)) words = performance.now() - t0;
  }
  if (!/event: done/.test(seen)) throw new Error(`no done event: ${seen.slice(0, 300)}`);
  return { headers, words: words || performance.now() - t0 };
}

const stack = await startBenchStack({ instantExecutor: true, vars: { MODEL_TIMEOUT_MS: "60000" } });
try {
  const tag = Date.now().toString(36);
  const room = (i: number) => `slack-T${tag}-Cnew${i}`;
  // Warm-up: the rooms' code compiled, one room made.
  for (let i = 0; i < 3; i++) await firstTurn(stack.workerUrl, stack.token, `slack-T${tag}-Cwarm${i}`);
  const q = (xs: number[], p: number) => percentile(xs, p).toFixed(0);
  const batch = async (label: string, name: (i: number) => string) => {
    let line = "";
    const timed = async () => {
      line = await timedBatch(label, name);
    };
    const fsyncs = FSYNCS ? await fsyncsDuring(stack.workerd.runtime, timed) : (await timed(), null);
    console.log(fsyncs === null ? line : `${line}; fsyncs per turn ${(fsyncs / N).toFixed(1)}`);
  };
  const timedBatch = async (label: string, name: (i: number) => string) => {
    const r0 = cpuMs(stack.workerd.runtime);
    const p0 = cpuMs(stack.workerd.proxy);
    const t0 = performance.now();
    const all = await Promise.all(Array.from({ length: N }, (_, i) => firstTurn(stack.workerUrl, stack.token, name(i))));
    const wall = performance.now() - t0;
    const cpu = (cpuMs(stack.workerd.runtime) - r0) / N;
    const proxy = (cpuMs(stack.workerd.proxy) - p0) / N;
    const h = all.map((a) => a.headers);
    const w = all.map((a) => a.words);
    return `${label}: headers p50 ${q(h, 50)} ms p99 ${q(h, 99)} ms; first words p50 ${q(w, 50)} ms p99 ${q(w, 99)} ms; all done in ${wall.toFixed(0)} ms; CPU per turn: runtime ${cpu.toFixed(2)} ms, dev proxy ${proxy.toFixed(2)} ms`;
  };
  await batch(`${N} first turns in ${N} new rooms at once`, room);
  await new Promise((r) => setTimeout(r, 1_000));
  await batch(`${N} second turns in the same rooms at once`, room);
} finally {
  await stack.stop();
}
