import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Result } from "./stats.ts";
import { DESIGN_LABELS, FLOOR_LABELS, METRICS, RATIOS, sideName } from "./suites/side-by-side.ts";
import { type GroupsRun, groupsRuns, groupsRunsLine } from "./groups-runs.ts";
import { check } from "./targets.ts";

/** Writes results.json (machine-readable) and RESULTS.md (table, machine, date, targets) and prints the table. */

const here = fileURLToPath(new URL(".", import.meta.url));
/** Where results.json and RESULTS.md are read and written: bench/, or a temp dir (DUET_BENCH_OUT) for a run that must leave them alone (bench/against.ts). */
const out = process.env.DUET_BENCH_OUT || here;

function version(pkg: string): string {
  try {
    const path = join(here, "..", "node_modules", pkg, "package.json");
    return (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
  } catch {
    return "?";
  }
}

export function machine(): string {
  const c = cpus();
  return `${c.length} × ${c[0]?.model.trim() ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Linux ${release()}, Node ${process.version}, wrangler ${version("wrangler")}`;
}

const fmt = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? "—" : String(x));

function table(results: Result[]): string {
  const rows = results.map((r) => `| ${r.name} | ${fmt(r.median)} | ${fmt(r.p99)} | ${r.unit} | ${r.n} | ${r.note ?? ""} |`);
  return ["| benchmark | median | p99 | unit | n | note |", "| --- | ---: | ---: | --- | ---: | --- |", ...rows].join("\n");
}

function targets(results: Result[]): string {
  const rows = check(results).map(({ target, value, met, why }) => {
    const status = met === undefined ? "not measured" : met ? "met" : `**missed**: ${why}`;
    return `| ${target.what} | ${fmt(value)} ${target.unit} (${target.stat === "median" ? "p50" : "p99"}) | ${status} |`;
  });
  return ["| target | measured | status |", "| --- | ---: | --- |", ...rows].join("\n");
}

/** "Of each message's CPU, this much is Duet's own": the message CPU beside the runtime's per-request CPU. */
function cpuShare(results: Result[]): string {
  const base = results.find((r) => r.name === "worker: runtime CPU per request (GET /health)")?.median;
  const lines = [1, 10, 100].flatMap((rooms) => {
    const msg = results.find((r) => r.name === `worker: CPU per message, ${rooms} room(s)`)?.median;
    if (base === undefined || msg === undefined) return [];
    const own = msg - base;
    return [`${rooms} room(s): ${msg.toFixed(1)} ms CPU per message, of which ≈ ${own.toFixed(1)} ms (${Math.round((own / msg) * 100)} %) is Duet's own`];
  });
  if (!lines.length) return "CPU figures were not measured in this run.";
  return [
    `Under \`wrangler dev\` the runtime costs ${fmt(base)} ms of workerd CPU per \`GET /health\`, a request that runs no Duet`,
    "code (wrangler's dev proxy plus the runtime; the issue expected ~9 ms).",
    "Duet's own CPU per message = message CPU − that baseline. It still includes the runtime's side of the Durable",
    "Object call and of the outbound model request, and the dev proxy's extra work for the larger message bodies.",
    "",
    ...lines.map((l) => `- ${l}`),
  ].join("\n");
}

/** Every design's figures in one table, with Duet's ratio where it was measured batch beside batch; the floors after it. */
function sideBySideTable(results: Result[]): string {
  const find = (name: string) => results.find((r) => r.name === name);
  if (!find(sideName(DESIGN_LABELS[0], "rate"))) return "The side-by-side suite was not measured in this run.";
  const ratio: Partial<Record<keyof typeof METRICS, string>> = { rate: RATIOS.rate, disk: RATIOS.disk, late: RATIOS.late };
  const rows = (Object.keys(METRICS) as (keyof typeof METRICS)[]).map((metric) => {
    const cell = (label: string) => {
      const r = find(sideName(label, metric));
      if (!r) return "—";
      return r.median === r.p99 ? `${fmt(r.median)} ${r.unit}` : `${fmt(r.median)} / ${fmt(r.p99)} ${r.unit}`;
    };
    const named = ratio[metric];
    return `| ${METRICS[metric]} | ${DESIGN_LABELS.map(cell).join(" | ")} | ${named ? `${fmt(find(named)?.median)} ×` : ""} | ${FLOOR_LABELS.map(cell).join(" | ")} |`;
  });
  const ratioOf = (name: string) => `${fmt(find(name)?.median)} ×`;
  return [
    "Median, or median / p99 where there are several samples. Per message = per `POST .../message` (one turn).",
    "The floors (`bench/floor-design/`) answer the same request with the same body and nothing else; measured in the same rounds for messages/s and CPU.",
    "",
    `| | ${DESIGN_LABELS.join(" | ")} | Duet ÷ seed | ${FLOOR_LABELS.join(" | ")} |`,
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    ...rows,
    "",
    `messages/s ÷ the seed design's: floor with 2 commits ${ratioOf(RATIOS.floor)}, floor with 1 commit ${ratioOf(RATIOS.floorOneCommit)}; Duet ÷ the floor with 2 commits: ${ratioOf(RATIOS.duetOverFloor)}.`,
  ].join("\n");
}

/** The 1-minute load average, read when the run starts: other work on the machine shows in the tails. */
export const loadNow = () => loadavg()[0].toFixed(2);

interface SavedRun {
  date: string;
  /** In a run of some groups only: when the figures it kept were measured. */
  keptFrom?: string;
  /** The runs of some groups whose figures are in these results, oldest first (the whole run's are `keptFrom`). */
  runs?: GroupsRun[];
  results: Result[];
}

/** The figures of the last run, for a run of only some groups to keep the others' (none when there is no results.json). */
export function previousRun(): SavedRun | undefined {
  const file = join(out, "results.json");
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, "utf8")) as SavedRun;
}

/** A run of only some groups: which, and the run whose other figures are kept. */
export interface PartialRun {
  groups: string[];
  previous: SavedRun | undefined;
}

export function report(measured: Result[], problems: string[], seconds: number, loadAtStart: string, notes: string, partial?: PartialRun): void {
  const date = new Date().toISOString();
  const where = machine();
  const load = `Load average ${loadAtStart} at the start and ${loadNow()} at the end (1 min; other work on this shared machine shows in the tails).`;
  const names = new Set(measured.map((r) => r.name));
  const kept = (partial?.previous?.results ?? []).filter((r) => !names.has(r.name) && !(r.suite && partial!.groups.includes(r.suite)));
  const results = [...kept, ...measured];
  const all = table(results);
  console.log(`\n${table(measured)}\n`);
  const keptFrom = kept.length ? (partial?.previous?.keptFrom ?? partial?.previous?.date) : undefined;
  const thisRun: GroupsRun = { groups: partial?.groups ?? [], date, seconds: Math.round(seconds), load: { start: loadAtStart, end: loadNow() } };
  const runs = partial ? groupsRuns(kept.length ? (partial.previous?.runs ?? []) : [], partial.groups, thisRun) : undefined;
  const how = runs
    ? groupsRunsLine(runs, where, keptFrom)
    : `Measured ${date} in one run of \`pnpm bench\` (${Math.round(seconds)} s) on ${where}.`;
  const saved = { date, machine: where, load: thisRun.load, seconds: thisRun.seconds, ...(runs ? { groups: partial!.groups, ...(keptFrom ? { keptFrom } : {}), runs } : {}), results, problems };
  writeFileSync(join(out, "results.json"), `${JSON.stringify(saved, null, 2)}\n`);
  const md = [
    "# Benchmark results",
    "",
    how,
    load,
    "",
    "## Targets",
    "",
    targets(results),
    "",
    "## Side by side: the seed's design and Duet, in one run",
    "",
    sideBySideTable(results),
    "",
    "## CPU: how much is Duet's own",
    "",
    cpuShare(results),
    "",
    "## All figures",
    "",
    all,
    "",
    ...(problems.length ? ["## Problems in this run", "", ...problems.map((p) => `- ${p}`), ""] : []),
    notes.trim(),
    "",
  ].join("\n");
  writeFileSync(join(out, "RESULTS.md"), md);
}
