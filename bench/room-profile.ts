import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { cpuMs } from "./proc.ts";
import { startBenchStack, type BenchStack } from "./stack.ts";
import { quietPort } from "../test/helpers/ports.ts";

/**
 * Where the room's CPU goes: Duet's Worker under the side-by-side load (10
 * clients, each sending one message after another to its own room, rooms first
 * filled to the 50-message cap), profiled through workerd's DevTools inspector
 * (V8's sampling profiler on the runtime's isolate), with the runtime process's
 * CPU from /proc over the same messages.
 *
 *   node --experimental-websocket --import tsx bench/room-profile.ts [messages] [out.cpuprofile]
 *
 * Prints the runtime CPU per message, the profile's split (JS by module of the
 * bundle, the garbage collector, native work V8 cannot name), the functions
 * with the most self time, and the inclusive time of the turn's named steps.
 * The .cpuprofile opens in Chrome DevTools or speedscope.
 */

const CLIENTS = 10;
const HISTORY_TURNS = 25;
const QUESTION = "how do I list the ten largest files here, without node_modules, with human readable sizes?";
const MESSAGES = Number(process.argv[2] ?? 3000);
const OUT = process.argv[3] ?? "/tmp/duet-room.cpuprofile";
const DUET_CONFIG = process.env.DUET_PROFILE_CONFIG;

interface CallFrame { functionName: string; url: string; lineNumber: number; columnNumber: number; scriptId: string }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

async function send(stack: BenchStack, room: string): Promise<void> {
  const res = await fetch(`${stack.workerUrl}/api/rooms/${room}/message`, {
    method: "POST",
    headers: { authorization: `Bearer ${stack.token}`, "content-type": "application/json" },
    body: JSON.stringify({ text: QUESTION }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`the Worker answered HTTP ${res.status}: ${text.slice(0, 200)}`);
}

const roomId = (tag: string, i: number) => `slack-T${tag}-Cload${i}`;

async function load(stack: BenchStack, tag: string, perClient: number): Promise<void> {
  await Promise.all(Array.from({ length: CLIENTS }, async (_, c) => {
    for (let i = 0; i < perClient; i++) await send(stack, roomId(tag, c));
  }));
}

/** One DevTools session over the inspector's WebSocket: `call` sends a method and resolves with its result. */
async function devtools(port: number): Promise<{ call: (method: string, params?: object) => Promise<any>; close: () => void }> {
  if (typeof WebSocket === "undefined") throw new Error("run with node --experimental-websocket (Node 20 has no WebSocket without it)");
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as { webSocketDebuggerUrl: string; title?: string }[];
  if (!targets.length) throw new Error(`the inspector on ${port} lists no target`);
  // wrangler's inspector proxy wants an Origin it knows (DevTools' own is localhost).
  const ws = new WebSocket(targets[0].webSocketDebuggerUrl, { headers: { origin: "http://localhost" } } as unknown as string[]);
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve, { once: true });
    ws.addEventListener("error", reject, { once: true });
  });
  let next = 1;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  ws.addEventListener("message", (e) => {
    const msg = JSON.parse(String(e.data)) as { id?: number; result?: unknown; error?: { message: string } };
    const w = msg.id === undefined ? undefined : waiting.get(msg.id);
    if (!w) return;
    waiting.delete(msg.id!);
    if (msg.error) w.reject(new Error(msg.error.message));
    else w.resolve(msg.result);
  });
  return {
    call: (method, params = {}) =>
      new Promise((resolve, reject) => {
        const id = next++;
        waiting.set(id, { resolve, reject });
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

/** The bundle's modules by line: esbuild marks each with a `// path` comment where its code begins. */
function moduleLines(source: string): { line: number; module: string }[] {
  const out: { line: number; module: string }[] = [];
  source.split("\n").forEach((text, line) => {
    const m = /^\/\/ ((?:\.\.\/)*(?:node_modules\/|worker\/|shared\/|bench\/)?[\w@./+-]+\.(?:[cm]?js|ts))$/.exec(text);
    if (m) out.push({ line, module: m[1] });
  });
  return out;
}

function moduleAt(lines: { line: number; module: string }[], line: number): string {
  let lo = 0;
  let hi = lines.length - 1;
  let found = "(bundle top)";
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (lines[mid].line <= line) {
      found = lines[mid].module;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found
    .replace(/^(\.\.\/)+/, "")
    .replace(/^node_modules\/\.pnpm\/[^/]+\/node_modules\//, "")
    .replace(/^node_modules\//, "");
}

/** What a module path is grouped under: Duet's folder, or the package it comes from. */
function areaOf(module: string): string {
  const duet = /^(worker\/src\/[^/]+|shared\/src\/[^/]+)/.exec(module);
  if (duet) return duet[1].replace(/\.ts$/, "");
  const pkg = /^(@[^/]+\/[^/]+|[^/]+)/.exec(module);
  return pkg ? pkg[1] : module;
}

function analyse(profile: Profile, sources: Map<string, string>, messages: number, runtimeMsPerMessage: number): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const lineMaps = new Map<string, { line: number; module: string }[]>();
  for (const [url, src] of sources) lineMaps.set(url, moduleLines(src));
  const moduleOf = (f: CallFrame) => {
    if (!f.url) return "";
    const lines = lineMaps.get(f.url);
    return lines && lines.length ? moduleAt(lines, f.lineNumber) : f.url.replace(/^.*\//, "");
  };
  const keyOf = (f: CallFrame) => {
    const m = moduleOf(f);
    return m ? `${f.functionName || "(anonymous)"} ${m}:${f.lineNumber + 1}` : f.functionName;
  };
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const areaSelf = new Map<string, number>();
  let all = 0;
  // Each sample's time is the gap to the next one (the last sample gets the mean).
  const deltas = profile.timeDeltas.slice(1).concat([(profile.endTime - profile.startTime) / profile.samples.length]);
  for (let i = 0; i < profile.samples.length; i++) {
    const us = deltas[i];
    const node = byId.get(profile.samples[i])!;
    all += us;
    const f = node.callFrame;
    const name = keyOf(f);
    self.set(name, (self.get(name) ?? 0) + us);
    const area = f.url ? areaOf(moduleOf(f)) : f.functionName;
    areaSelf.set(area, (areaSelf.get(area) ?? 0) + us);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const k = keyOf(byId.get(id)!.callFrame);
      if (seen.has(k)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + us);
    }
  }
  const idle = areaSelf.get("(idle)") ?? 0;
  const busy = all - idle;
  // ms per message of the runtime's CPU that the profile's busy share stands for.
  const perMsg = (us: number) => ((us / busy) * runtimeMsPerMessage).toFixed(3);
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1)}%`;
  const rows = (m: Map<string, number>, n: number, skip = (k: string) => k === "(idle)") =>
    [...m].filter(([k]) => !skip(k)).sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, us]) => `  ${pct(us).padStart(6)}  ${perMsg(us).padStart(7)} ms  ${k}`);
  return [
    `profile: ${(all / 1e6).toFixed(1)} s sampled, ${(idle / 1e6).toFixed(1)} s idle, ${messages} messages; runtime CPU ${runtimeMsPerMessage.toFixed(2)} ms/message (/proc, the same messages, profiler on)`,
    "busy time by area (self time; ms per message scaled to the runtime's CPU):",
    ...rows(areaSelf, 40),
    "functions by self time:",
    ...rows(self, 60),
    "functions by inclusive time:",
    ...rows(total, 120),
  ].join("\n");
}

async function main(): Promise<void> {
  const inspectorPort = await quietPort();
  const stack = await startBenchStack({ instantExecutor: true, inspectorPort, ...(DUET_CONFIG ? { config: DUET_CONFIG, executor: "none" as const } : {}) });
  try {
    const tag = Date.now().toString(36).toUpperCase();
    await load(stack, tag, HISTORY_TURNS);
    const dt = await devtools(inspectorPort);
    const scripts = new Map<string, string>();
    const sources = new Map<string, string>();
    await dt.call("Profiler.enable");
    await dt.call("Profiler.setSamplingInterval", { interval: 200 });
    // A second load first, so the code is warm (and compiled) before sampling starts.
    await load(stack, tag, 10);
    const perClient = Math.ceil(MESSAGES / CLIENTS);
    await dt.call("Profiler.start");
    const r0 = cpuMs(stack.workerd.runtime);
    await load(stack, tag, perClient);
    const runtime = cpuMs(stack.workerd.runtime) - r0;
    const { profile } = (await dt.call("Profiler.stop")) as { profile: Profile };
    writeFileSync(OUT, JSON.stringify(profile));
    // The bundle's text, to name each frame's module.
    for (const n of profile.nodes) if (n.callFrame.url && n.callFrame.scriptId !== "0") scripts.set(n.callFrame.url, n.callFrame.scriptId);
    for (const [url, scriptId] of scripts) {
      try {
        const path = url.startsWith("file://") ? fileURLToPath(url) : url;
        sources.set(url, readFileSync(path, "utf8"));
      } catch {
        try {
          await dt.call("Debugger.enable");
          sources.set(url, ((await dt.call("Debugger.getScriptSource", { scriptId })) as { scriptSource: string }).scriptSource);
        } catch {
          // A frame without its source is named by its file.
        }
      }
    }
    dt.close();
    // The bundle beside the profile, so a frame's line can be read.
    for (const [url, src] of sources) writeFileSync(`${OUT}.${url.replace(/[^\w.-]+/g, "_")}`, src);
    const n = perClient * CLIENTS;
    console.log(analyse(profile, sources, n, runtime / n));
    console.log(`written: ${OUT}`);
  } finally {
    await stack.stop();
  }
}

await main();
