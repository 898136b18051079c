/**
 * W3C Trace Context (`traceparent`: version-traceid-spanid-flags, lowercase
 * hex), read and written by hand: a few lines the bots, the Worker and the
 * CLI share, where an SDK would add its whole context machinery to the
 * Worker's bundle.
 */

export const TRACEPARENT_HEADER = "traceparent";

/** Where a span sits in its trace: what a `traceparent` carries. */
export interface TraceContext {
  traceId: string;
  spanId: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZEROS = /^0+$/;
/** The spec's longest header worth reading: a caller's 10 KB one is refused before the regex sees it. */
const TRACEPARENT_MAX_CHARS = 512;

/**
 * The context a `traceparent` names, or null for a missing or malformed one
 * (which starts a new trace; never an error). Version ff, all-zero ids and a
 * version-00 header with anything after its flags are malformed, as the spec says.
 */
export function parseTraceparent(raw: string | null | undefined): TraceContext | null {
  if (!raw || raw.length > TRACEPARENT_MAX_CHARS) return null;
  const m = TRACEPARENT.exec(raw.trim());
  if (!m) return null;
  const [, version, traceId, spanId, , rest] = m;
  if (version === "ff" || (version === "00" && rest) || ZEROS.test(traceId) || ZEROS.test(spanId)) return null;
  return { traceId, spanId };
}

/** The header for a span: always sampled (Duet traces every turn; the backend samples if it wants). */
export function formatTraceparent(ctx: TraceContext): string {
  return `00-${ctx.traceId}-${ctx.spanId}-01`;
}

/** Each byte's two hex digits, looked up rather than formatted: a turn makes a trace id and several span ids. */
const HEX_BYTES = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/**
 * Random bytes drawn a page at a time: one call into the runtime's generator
 * serves some 150 turns' ids instead of one call per id. Filled on first use
 * (a Worker may not ask for random values while its module loads).
 */
const POOL_BYTES = 4096;
let pool: Uint8Array | null = null;
let drawn = POOL_BYTES;

function randomHex(bytes: number): string {
  if (drawn + bytes > POOL_BYTES) {
    pool = crypto.getRandomValues(pool ?? new Uint8Array(POOL_BYTES));
    drawn = 0;
  }
  const b = pool!;
  let hex = "";
  let any = 0;
  for (let i = drawn; i < drawn + bytes; i++) {
    hex += HEX_BYTES[b[i]];
    any |= b[i];
  }
  drawn += bytes;
  // All zeros is not a valid id; with 8 random bytes it is as good as impossible, but never sent.
  return any === 0 ? randomHex(bytes) : hex;
}

export const newTraceId = (): string => randomHex(16);
export const newSpanId = (): string => randomHex(8);

/** Characters of the trace id a person is shown: enough to find one trace among a day's. */
export const TRACE_REF_CHARS = 8;

/** What ends an error line a person sees (`ref 4bf92f35`): `duet trace 4bf92f35` and the OTLP backend find it. */
export function traceRef(traceId: string): string {
  return `ref ${traceId.slice(0, TRACE_REF_CHARS)}`;
}
