import { existsSync, readFileSync } from "node:fs";
import { median, type Result } from "./stats.ts";

/**
 * Two trees' figures side by side (`bench/against.ts`): each run's results
 * file read, the median of each figure over the rounds, and one table with
 * new ÷ old. The figures that say whether a change made Duet slower or
 * heavier come first, in a fixed order; the rest measured by both follow.
 */

/** A figure that matters for "no worse than before", and which way is better. */
export interface KeyFigure {
  name: string;
  better: "lower" | "higher";
  /** The `pnpm bench` group that measures it (the same name in every tree so far). */
  group: string;
}

export const KEY_FIGURES: readonly KeyFigure[] = [
  { name: "side by side: Duet, SQLite rows written per turn, messages 1-10", better: "lower", group: "side-by-side" },
  { name: "side by side: Duet, SQLite rows written per turn, messages 51-60", better: "lower", group: "side-by-side" },
  { name: "side by side: Duet, disk bytes written per message", better: "lower", group: "side-by-side" },
  { name: "side by side: Duet, disk bytes written per message, messages 1-10", better: "lower", group: "side-by-side" },
  { name: "side by side: Duet, disk bytes written per message, messages 51-60", better: "lower", group: "side-by-side" },
  { name: "side by side: Duet ÷ seed design, messages/s", better: "higher", group: "side-by-side" },
  { name: "side by side: Duet ÷ seed design, latency of messages 51-60 (median)", better: "lower", group: "side-by-side" },
  { name: "side by side: Duet ÷ seed design, disk bytes per message", better: "lower", group: "side-by-side" },
  { name: "slack HTTP: model's first token → first visible text", better: "lower", group: "slack" },
  { name: "discord /duet ask: model's first token → first visible text", better: "lower", group: "discord" },
  { name: "slack HTTP: interaction → first visible text", better: "lower", group: "slack" },
  { name: "discord /duet ask: interaction → first visible text", better: "lower", group: "discord" },
  { name: "slack HTTP: overhead, mention → reply posted", better: "lower", group: "slack" },
  { name: "slack HTTP (built): bot RSS idle", better: "lower", group: "built" },
  { name: "slack Socket Mode (built): bot RSS idle", better: "lower", group: "built" },
  { name: "discord (built): bot RSS idle", better: "lower", group: "built" },
];

/** The groups that measure the key figures, in `pnpm bench`'s order. */
export const KEY_GROUPS = ["slack", "discord", "built", "side-by-side"] as const;

/** One run's figures: only those of the groups it ran (a results file may keep older ones beside them). */
export interface RunFigures {
  results: Result[];
  problems: string[];
}

/**
 * Reads a tree's results file after a run of `groups`. Every tree so far
 * writes `{results: Result[], problems?: string[]}` with each result's `suite`;
 * a figure without a suite is taken as measured by the run.
 */
export function readRun(file: string, groups: readonly string[]): RunFigures {
  if (!existsSync(file)) throw new Error(`the run wrote no results file (${file})`);
  const saved = JSON.parse(readFileSync(file, "utf8")) as { results?: unknown; problems?: unknown };
  if (!Array.isArray(saved.results)) throw new Error(`${file} has no "results" list; this tree's results format is not one bench/compare.ts reads`);
  const results = (saved.results as Result[]).filter((r) => typeof r?.name === "string" && typeof r.median === "number" && (!r.suite || groups.includes(r.suite)));
  const problems = Array.isArray(saved.problems) ? saved.problems.map(String) : [];
  return { results, problems };
}

/** Each figure's medians over the rounds of one side, by name, in first-seen order. */
export function byFigure(runs: RunFigures[]): Map<string, { unit: string; values: number[] }> {
  const figures = new Map<string, { unit: string; values: number[] }>();
  for (const run of runs) {
    for (const r of run.results) {
      const f = figures.get(r.name) ?? { unit: r.unit, values: [] };
      if (!Number.isNaN(r.median)) f.values.push(r.median);
      figures.set(r.name, f);
    }
  }
  return figures;
}

const fmt = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? "—" : String(Math.round(x * 100) / 100));

/**
 * The table: figure, old median, new median (each the median over the rounds
 * of the run's median), new ÷ old, which way is better. Key figures first
 * (missing ones shown as —), then every other figure both sides measured.
 */
export function compareTable(old: RunFigures[], now: RunFigures[], labels: { old: string; now: string }): string {
  const a = byFigure(old);
  const b = byFigure(now);
  const row = (name: string, better: string) => {
    const x = a.get(name);
    const y = b.get(name);
    const m = x?.values.length ? median(x.values) : undefined;
    const n = y?.values.length ? median(y.values) : undefined;
    const ratio = m !== undefined && n !== undefined && m !== 0 ? `${fmt(n / m)} ×` : "—";
    const unit = y?.unit ?? x?.unit ?? "";
    const rounds = `${x?.values.length ?? 0}/${y?.values.length ?? 0}`;
    return `| ${name} | ${fmt(m)} | ${fmt(n)} | ${unit} | ${ratio} | ${better} | ${rounds} |`;
  };
  const keyNames = new Set(KEY_FIGURES.map((k) => k.name));
  const others = [...b.keys()].filter((name) => a.has(name) && !keyNames.has(name));
  const head = [`| figure | ${labels.old} | ${labels.now} | unit | new ÷ old | better | rounds (old/new) |`, "| --- | ---: | ---: | --- | ---: | --- | ---: |"];
  return [
    ...head,
    ...KEY_FIGURES.map((k) => row(k.name, k.better)),
    ...(others.length ? [`| **every other figure both measured** | | | | | | |`, ...others.map((name) => row(name, ""))] : []),
  ].join("\n");
}
