import type { SpanData } from "@duet/shared";
import type { Style } from "./render.ts";

/**
 * A trace drawn as a waterfall in the terminal: one line per span, indented
 * under its parent, with a bar placed where it ran in the trace's time, its
 * duration, and what a person looks for (tokens, exit codes, failures).
 */

const BAR_WIDTH = 32;
const NAME_WIDTH = 34;

/** The short facts of a span: its model tokens, a command's exit code and output, its failure. */
function facts(s: SpanData): string {
  const a = s.attributes;
  const out: string[] = [];
  if (a["gen_ai.usage.input_tokens"] !== undefined) out.push(`${a["gen_ai.usage.input_tokens"]} in / ${a["gen_ai.usage.output_tokens"] ?? "?"} out tokens`);
  if (a["duet.model.time_to_first_token_ms"] !== undefined) out.push(`first token ${a["duet.model.time_to_first_token_ms"]} ms`);
  if (a["duet.command"] !== undefined) out.push(`$ ${String(a["duet.command"]).slice(0, 40)}`);
  if (a["process.exit.code"] !== undefined) out.push(`exit ${a["process.exit.code"]}`);
  if (a["duet.command.output_bytes"] !== undefined) out.push(`${a["duet.command.output_bytes"]} B out`);
  if (s.error) out.push(`failed: ${s.error}`);
  return out.join(", ");
}

const ms = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`);

/** The spans of one trace, as lines; children follow their parent in start order, orphans at the top level. */
export function drawWaterfall(spans: SpanData[], style?: Pick<Style, "dim" | "red">): string[] {
  if (!spans.length) return [];
  const dim = style?.dim ?? ((t: string) => t);
  const red = style?.red ?? ((t: string) => t);
  const start = Math.min(...spans.map((s) => s.startMs));
  const end = Math.max(...spans.map((s) => s.endMs));
  const total = Math.max(end - start, 1);
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string, SpanData[]>();
  const roots: SpanData[] = [];
  for (const s of [...spans].sort((x, y) => x.startMs - y.startMs)) {
    if (s.parentSpanId && ids.has(s.parentSpanId)) children.set(s.parentSpanId, [...(children.get(s.parentSpanId) ?? []), s]);
    else roots.push(s);
  }
  const lines = [`trace ${spans[0].traceId}  ${ms(total)}, ${spans.length} spans`];
  const walk = (s: SpanData, depth: number) => {
    const from = Math.floor(((s.startMs - start) / total) * BAR_WIDTH);
    const width = Math.max(1, Math.round(((s.endMs - s.startMs) / total) * BAR_WIDTH));
    const bar = `${" ".repeat(from)}${"█".repeat(Math.min(width, BAR_WIDTH - from))}`.padEnd(BAR_WIDTH);
    const name = `${"  ".repeat(depth)}${s.name}${s.service ? dim(` ${s.service.replace(/^duet-/, "")}`) : ""}`;
    const shown = facts(s);
    lines.push(`${name.padEnd(NAME_WIDTH)} |${bar}| ${ms(s.endMs - s.startMs).padStart(7)}${shown ? `  ${s.error ? red(shown) : shown}` : ""}`);
    for (const c of children.get(s.spanId) ?? []) walk(c, depth + 1);
  };
  for (const r of roots) walk(r, 0);
  return lines;
}

/**
 * The trace `ref` names among `spans`: `last` (the newest trace), a trace id,
 * or its first characters (at least 4, as an error's `ref 4bf92f35` shows them).
 * Null when none matches.
 */
export function findTrace(spans: SpanData[], ref: string): SpanData[] | null {
  const wanted = ref.trim().replace(/^ref\s+/i, "").toLowerCase();
  let traceId: string | undefined;
  if (wanted === "last") {
    traceId = [...spans].sort((a, b) => a.endMs - b.endMs).at(-1)?.traceId;
  } else if (/^[0-9a-f]{4,32}$/.test(wanted)) {
    traceId = [...spans].reverse().find((s) => s.traceId.startsWith(wanted))?.traceId;
  }
  return traceId ? spans.filter((s) => s.traceId === traceId) : null;
}
