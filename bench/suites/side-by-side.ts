import { fileURLToPath } from "node:url";
import { cpuMs, writeBytes } from "../proc.ts";
import { median, single, summarize, type Result } from "../stats.ts";
import { startBenchStack, type BenchStack } from "../stack.ts";

/**
 * Duet's Worker beside the seed's design (bench/seed-design/: one Agent per room
 * that rewrites its whole message list per message), both under the same
 * wrangler in this process, each with its own instance of the same fake model,
 * measured in alternating batches so that other work on the machine falls on
 * both alike. Per design: messages/s with 10 clients over 10 rooms at a full
 * history, latency of messages 1-10 and 51-60 in a fresh room, SQLite rows
 * written per turn (each room's own meter, GET /api/rooms/:id/stats) and bytes
 * the design's two workerd processes wrote (write_bytes in /proc/<pid>/io).
 *
 * Two floors run in the same rounds, for messages/s and CPU only
 * (bench/floor-design/: the least a room can do and answer the same): one
 * with Duet's two commits a turn (the question kept before the model is
 * asked), one committing once after the model as the seed's design does.
 */

const SEED_CONFIG = fileURLToPath(new URL("../seed-design/wrangler.toml", import.meta.url));
const FLOOR_CONFIG = fileURLToPath(new URL("../floor-design/wrangler.toml", import.meta.url));
const FLOOR_ONE_COMMIT_CONFIG = fileURLToPath(new URL("../floor-design/wrangler.one-commit.toml", import.meta.url));
const CLIENTS = 10;
/** Messages each client sends per batch; a batch is one design's 300 messages. */
const PER_CLIENT = 30;
const ROUNDS = 4;
/** Fresh rooms per design for the latency and rows of messages 1-10 and 51-60. */
const FRESH_ROOMS = 3;
const HISTORY_TURNS = 25;
const QUESTION = "how do I list the ten largest files here, without node_modules, with human readable sizes?";

type DesignName = "seed" | "duet" | "floor" | "floor1";
interface Design {
  name: DesignName;
  label: string;
  stack: BenchStack;
}

interface Totals {
  messages: number;
  seconds: number;
  bytes: number;
  /** Of `bytes`, what wrangler's dev proxy wrote (it is not there in production). */
  proxyBytes: number;
  cpuMs: number;
  /** Of `cpuMs`, the runtime's: the process that runs the Worker, as production would. */
  runtimeCpuMs: number;
  rates: number[];
  bytesPerMessage: number[];
  early: number[];
  late: number[];
  rowsEarly: number[];
  rowsLate: number[];
  diskEarly: number[];
  diskLate: number[];
}

async function send(d: Design, room: string, question = QUESTION): Promise<void> {
  const res = await fetch(`${d.stack.workerUrl}/api/rooms/${room}/message`, {
    method: "POST",
    headers: { authorization: `Bearer ${d.stack.token}`, "content-type": "application/json" },
    body: JSON.stringify({ text: question }),
  });
  const text = await res.text();
  let body: { reply?: unknown; messages?: unknown[] } | null = null;
  try {
    body = JSON.parse(text) as { reply?: unknown; messages?: unknown[] };
  } catch {
    // Not JSON (wrangler's own error page): said below with the status.
  }
  if (!res.ok || typeof body?.reply !== "string" || !Array.isArray(body.messages)) {
    throw new Error(`${d.label} answered HTTP ${res.status}: ${text.slice(0, 200)}`);
  }
}

async function rowsWritten(d: Design, room: string): Promise<number> {
  const res = await fetch(`${d.stack.workerUrl}/api/rooms/${room}/stats`, { headers: { authorization: `Bearer ${d.stack.token}` } });
  const body = (await res.json()) as { rowsWrittenSinceStart?: unknown };
  if (!res.ok || typeof body.rowsWrittenSinceStart !== "number") throw new Error(`${d.label} stats answered HTTP ${res.status}`);
  return body.rowsWrittenSinceStart;
}

const pids = (d: Design) => [d.stack.workerd.proxy, d.stack.workerd.runtime];
const diskBytes = (d: Design) => pids(d).reduce((sum, pid) => sum + writeBytes(pid), 0);
const cpu = (d: Design) => pids(d).reduce((sum, pid) => sum + cpuMs(pid), 0);

/** Slack-shaped channel room ids, so Duet does what a real channel costs it (its one-time parent registration included). */
const roomId = (tag: string, what: string, i: number) => `slack-T${tag}-C${what}${i}`;

/** One batch: every client sends PER_CLIENT messages, one after another, to its own room. */
async function batch(d: Design, tag: string, t: Totals): Promise<void> {
  const b0 = diskBytes(d);
  const p0 = writeBytes(d.stack.workerd.proxy);
  const c0 = cpu(d);
  const r0 = cpuMs(d.stack.workerd.runtime);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = 0; i < PER_CLIENT; i++) await send(d, roomId(tag, "load", c));
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const bytes = diskBytes(d) - b0;
  const n = CLIENTS * PER_CLIENT;
  t.messages += n;
  t.seconds += seconds;
  t.bytes += bytes;
  t.proxyBytes += writeBytes(d.stack.workerd.proxy) - p0;
  t.cpuMs += cpu(d) - c0;
  t.runtimeCpuMs += cpuMs(d.stack.workerd.runtime) - r0;
  t.rates.push(n / seconds);
  t.bytesPerMessage.push(bytes / n);
}

/** A fresh room, 60 messages one at a time: latency, rows and disk bytes of messages 1-10 and 51-60. */
async function freshRoom(d: Design, room: string, overhead: number, t: Totals): Promise<void> {
  const timed = async (into: number[]) => {
    const b0 = diskBytes(d);
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      await send(d, room);
      into.push(performance.now() - t0);
    }
    return (diskBytes(d) - b0) / 10;
  };
  // No stats call before message 1: the room is created by the message, as in use.
  t.diskEarly.push(await timed(t.early));
  t.rowsEarly.push(((await rowsWritten(d, room)) - overhead) / 10);
  for (let i = 10; i < 50; i++) await send(d, room);
  const r50 = await rowsWritten(d, room);
  t.diskLate.push(await timed(t.late));
  t.rowsLate.push(((await rowsWritten(d, room)) - r50 - overhead) / 10);
}

/** Rows one stats request itself writes (the SDK's per-request bookkeeping), so it can be left out of the per-turn figure. */
async function statsOverhead(d: Design, room: string): Promise<number> {
  const a = await rowsWritten(d, room);
  return (await rowsWritten(d, room)) - a;
}

const empty = (): Totals => ({
  messages: 0, seconds: 0, bytes: 0, proxyBytes: 0, cpuMs: 0, runtimeCpuMs: 0, rates: [], bytesPerMessage: [], early: [], late: [], rowsEarly: [], rowsLate: [], diskEarly: [], diskLate: [],
});

/** What is measured per design, as the results name it: `side by side: <design>, <metric>`. */
export const METRICS = {
  rate: `messages/s, ${CLIENTS} clients over ${CLIENTS} rooms`,
  disk: "disk bytes written per message",
  cpu: "workerd CPU per message",
  runtimeCpu: "runtime CPU per message (no dev proxy)",
  early: "latency of messages 1-10, fresh room",
  late: "latency of messages 51-60, fresh room",
  rowsEarly: "SQLite rows written per turn, messages 1-10",
  rowsLate: "SQLite rows written per turn, messages 51-60",
  diskEarly: "disk bytes written per message, messages 1-10",
  diskLate: "disk bytes written per message, messages 51-60",
} as const;
export const DESIGN_LABELS = ["seed design", "Duet"] as const;
/** The floors, measured for messages/s and CPU only. */
export const FLOOR_LABELS = ["floor, 2 commits", "floor, 1 commit"] as const;
export const sideName = (label: string, metric: keyof typeof METRICS) => `side by side: ${label}, ${METRICS[metric]}`;
/** Duet's figure divided by the seed design's, measured batch beside batch. */
export const RATIOS = {
  rate: "side by side: Duet ÷ seed design, messages/s",
  disk: "side by side: Duet ÷ seed design, disk bytes per message",
  late: "side by side: Duet ÷ seed design, latency of messages 51-60 (median)",
  floor: "side by side: floor, 2 commits ÷ seed design, messages/s",
  floorOneCommit: "side by side: floor, 1 commit ÷ seed design, messages/s",
  duetOverFloor: "side by side: Duet ÷ floor, 2 commits, messages/s",
} as const;

/** A floor's figures: the batches only. */
function floorResults(d: Design, t: Totals): Result[] {
  return results(d, t, 0).slice(0, 4);
}

function results(d: Design, t: Totals, overhead: number): Result[] {
  const name = (m: keyof typeof METRICS) => sideName(d.label, m);
  const rates = t.rates.map((r) => r.toFixed(0)).join(", ");
  const note = overhead ? `; ${overhead} row(s) a stats request writes left out` : "";
  return [
    single(name("rate"), "msg/s", t.messages / t.seconds, t.messages, `history 50; ${ROUNDS} batches of ${CLIENTS * PER_CLIENT}: ${rates}`),
    single(name("disk"), "bytes", t.bytes / t.messages, t.messages, `write_bytes of its 2 workerd processes around each batch ÷ messages (dev proxy: ${(t.proxyBytes / t.messages).toFixed(0)}); history 50`),
    single(name("cpu"), "ms CPU", t.cpuMs / t.messages, t.messages, "both workerd processes, same batches"),
    single(name("runtimeCpu"), "ms CPU", t.runtimeCpuMs / t.messages, t.messages, "the runtime process alone, same batches"),
    summarize(name("early"), "ms", t.early, `one client; ${FRESH_ROOMS} rooms; message 1 creates the room`),
    summarize(name("late"), "ms", t.late, `one client; ${FRESH_ROOMS} rooms; history at its 50 cap`),
    summarize(name("rowsEarly"), "rows", t.rowsEarly, `each room's meter ÷ 10, per room; room creation included${note}`),
    summarize(name("rowsLate"), "rows", t.rowsLate, `each room's meter ÷ 10, per room${note}`),
    summarize(name("diskEarly"), "bytes", t.diskEarly, "one client, per room"),
    summarize(name("diskLate"), "bytes", t.diskLate, "one client, per room"),
  ];
}

export async function sideBySide(): Promise<Result[]> {
  const started: BenchStack[] = [];
  try {
    // One after another: startBenchStack tells each Worker's workerd processes apart by when they appear.
    const seed: Design = { name: "seed", label: DESIGN_LABELS[0], stack: await startBenchStack({ executor: "none", config: SEED_CONFIG }) };
    started.push(seed.stack);
    const duet: Design = { name: "duet", label: DESIGN_LABELS[1], stack: await startBenchStack({ instantExecutor: true }) };
    started.push(duet.stack);
    const floor: Design = { name: "floor", label: FLOOR_LABELS[0], stack: await startBenchStack({ executor: "none", config: FLOOR_CONFIG }) };
    started.push(floor.stack);
    const floor1: Design = { name: "floor1", label: FLOOR_LABELS[1], stack: await startBenchStack({ executor: "none", config: FLOOR_ONE_COMMIT_CONFIG }) };
    started.push(floor1.stack);
    const designs = [seed, duet, floor, floor1];
    const tag = Date.now().toString(36).toUpperCase();
    const totals: Record<DesignName, Totals> = { seed: empty(), duet: empty(), floor: empty(), floor1: empty() };
    const overhead: Record<DesignName, number> = { seed: 0, duet: 0, floor: 0, floor1: 0 };
    // Each load room is filled to its 50-message cap first (this is also each Worker's warm-up).
    for (const d of designs) {
      await Promise.all(Array.from({ length: CLIENTS }, async (_, c) => {
        for (let i = 0; i < HISTORY_TURNS; i++) await send(d, roomId(tag, "load", c));
      }));
      if (d === seed || d === duet) overhead[d.name] = await statsOverhead(d, roomId(tag, "load", 0));
    }
    // The order turns each round, so no design always runs first or last.
    for (let r = 0; r < ROUNDS; r++) {
      for (let k = 0; k < designs.length; k++) {
        const d = designs[(r + k) % designs.length];
        await batch(d, tag, totals[d.name]);
      }
    }
    for (let k = 0; k < FRESH_ROOMS; k++) {
      for (const d of k % 2 ? [duet, seed] : [seed, duet]) await freshRoom(d, roomId(tag, "fresh", k), overhead[d.name], totals[d.name]);
    }
    const s = totals.seed;
    const q = totals.duet;
    const f = totals.floor;
    const f1 = totals.floor1;
    const pairs = (a: number[], b: number[]) => a.map((x, i) => (x / b[i]).toFixed(2)).join(", ");
    const rate = (t: Totals) => t.messages / t.seconds;
    return [
      ...results(seed, s, overhead.seed),
      ...results(duet, q, overhead.duet),
      ...floorResults(floor, f),
      ...floorResults(floor1, f1),
      single(RATIOS.rate, "×", rate(q) / rate(s), q.messages, `per round: ${pairs(q.rates, s.rates)}`),
      single(RATIOS.floor, "×", rate(f) / rate(s), f.messages, `per round: ${pairs(f.rates, s.rates)}`),
      single(RATIOS.floorOneCommit, "×", rate(f1) / rate(s), f1.messages, `per round: ${pairs(f1.rates, s.rates)}`),
      single(RATIOS.duetOverFloor, "×", rate(q) / rate(f), q.messages, `per round: ${pairs(q.rates, f.rates)}`),
      single(RATIOS.disk, "×", q.bytes / q.messages / (s.bytes / s.messages), q.messages, `per round: ${pairs(q.bytesPerMessage, s.bytesPerMessage)}`),
      single(RATIOS.late, "×", median(q.late) / median(s.late), q.late.length),
    ];
  } finally {
    for (const st of started.reverse()) await st.stop();
  }
}
