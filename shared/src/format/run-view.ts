import type { RunResult } from "../wire/schemas.ts";
import { combineOutput } from "./output.ts";

/**
 * One command's result as every front end shows it: the command line, a status line and
 * the output (the flow redacted them before). The front ends only choose the layout.
 */

export type RunView = { command: string; status: string; output: string; ok: boolean };

/** 12 → "12 ms", 1300 → "1.3 s", 125000 → "2 min 5 s", 3720000 → "1 h 2 min". */
export function formatDuration(ms: number): string {
  const safe = Number.isFinite(ms) && ms > 0 ? ms : 0;
  if (Math.round(safe) < 1000) return `${Math.round(safe)} ms`;
  const tenths = Math.round(safe / 100);
  if (tenths < 600) return `${(tenths / 10).toFixed(1)} s`;
  const seconds = Math.round(safe / 1000);
  if (seconds < 3600) {
    const s = seconds % 60;
    return `${Math.floor(seconds / 60)} min${s ? ` ${s} s` : ""}`;
  }
  const minutes = Math.round(seconds / 60);
  const m = minutes % 60;
  return `${Math.floor(minutes / 60)} h${m ? ` ${m} min` : ""}`;
}

/**
 * `command` is `$ <cmd>`; `status` is `exit 0 · 12 ms`, `failed: <error>` or, when the
 * exit code is null, `outcome unknown (the Worker restarted while it ran)`, with
 * `· output truncated` added when the sandbox cut the output; `output` is stdout then
 * stderr. `ok` is exit 0 without an error.
 */
export function describeRun(run: RunResult): RunView {
  let status: string;
  if (run.error) status = `failed: ${run.error}`;
  else if (run.exitCode === null) status = "outcome unknown (the Worker restarted while it ran)";
  else status = `exit ${run.exitCode} · ${formatDuration(run.durationMs)}`;
  if (run.truncated) status += " · output truncated";
  return {
    command: `$ ${run.cmd}`,
    status,
    output: combineOutput(run.stdout, run.stderr),
    ok: run.exitCode === 0 && !run.error,
  };
}
