import { join } from "node:path";
import { readSpans, TRACES_FILE } from "../dev/trace-store.ts";
import type { Style } from "./render.ts";
import { drawWaterfall, findTrace } from "./waterfall.ts";

/** `duet trace [ID|last]`: the trace from `<home>/traces.jsonl` as a waterfall; 1 with one line when there is none. */
export function showTrace(ref: string, home: string, style: Style, out: (line: string) => void, err: (line: string) => void): number {
  const file = join(home, TRACES_FILE);
  const spans = readSpans(file);
  if (!spans.length) {
    err(`duet trace: no traces in ${file} yet (\`npm run dev\` keeps them there as turns run)`);
    return 1;
  }
  const trace = findTrace(spans, ref);
  if (!trace) {
    err(`duet trace: no trace ${ref} among the last ${spans.length} spans in ${file}`);
    return 1;
  }
  for (const line of drawWaterfall(trace, style)) out(line);
  return 0;
}
