/** Small statistics helpers for benchmarks: medians and tail percentiles over samples. */

export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

export const median = (s: number[]) => percentile(s, 50);

export interface Result {
  name: string;
  unit: string;
  median: number;
  p99: number;
  n: number;
  note?: string;
  /** The `pnpm bench <group>` that measured it (a partial run replaces only its groups' figures). */
  suite?: string;
}

/** One result from raw samples. */
export function summarize(name: string, unit: string, samples: number[], note?: string): Result {
  return { name, unit, median: round(median(samples)), p99: round(percentile(samples, 99)), n: samples.length, ...(note ? { note } : {}) };
}

/** One result that is a single measured figure (a rate or a ratio), reported as its own median and p99. */
export function single(name: string, unit: string, value: number, n: number, note?: string): Result {
  return { name, unit, median: round(value), p99: round(value), n, ...(note ? { note } : {}) };
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
