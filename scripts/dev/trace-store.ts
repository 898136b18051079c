import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fromOtlp, type SpanData } from "@duet/shared";

/**
 * The last traces of `pnpm dev`, kept where `duet trace` reads them: a small
 * OTLP/HTTP collector on 127.0.0.1 that the Worker and the bots export to
 * (their OTEL_EXPORTER_OTLP_ENDPOINT), writing each span as one JSON line of
 * `.duet/traces.jsonl`. The file is bounded: past TRACE_FILE_MAX_SPANS lines
 * it is cut to its newer half, so it never grows with the session.
 */

/** A few hundred turns' spans: enough to find today's error by its ref, small enough to read whole. */
export const TRACE_FILE_MAX_SPANS = 5_000;
/** One export request's body: the Worker and bots send a few KB; a bigger one is refused, not read. */
const EXPORT_MAX_BYTES = 4 * 1024 * 1024;

export const TRACES_FILE = "traces.jsonl";

/** Appends spans to the file, cutting it to its newer half once it holds more than `maxSpans`. */
export function keepSpans(file: string, spans: SpanData[], maxSpans = TRACE_FILE_MAX_SPANS): void {
  if (!spans.length) return;
  appendFileSync(file, spans.map((s) => `${JSON.stringify(s)}\n`).join(""));
  const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
  if (lines.length > maxSpans) writeFileSync(file, `${lines.slice(-Math.floor(maxSpans / 2)).join("\n")}\n`);
}

/** The spans the file holds, oldest first (a line that is not a span is skipped). */
export function readSpans(file: string): SpanData[] {
  if (!existsSync(file)) return [];
  const spans: SpanData[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line) continue;
    try {
      const s = JSON.parse(line) as SpanData;
      if (typeof s?.traceId === "string" && typeof s.spanId === "string" && typeof s.name === "string") spans.push(s);
    } catch {
      // A line cut by a crash mid-write: the rest of the file still reads.
    }
  }
  return spans;
}

export interface TraceCollector {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to. */
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Starts the collector on 127.0.0.1 (a free port), keeping what it is sent in `file`. */
export async function startTraceCollector(file: string, maxSpans = TRACE_FILE_MAX_SPANS): Promise<TraceCollector> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    req.on("data", (c: Buffer) => {
      bytes += c.length;
      if (bytes <= EXPORT_MAX_BYTES) chunks.push(c);
    });
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/traces") return void res.writeHead(404).end();
      if (bytes > EXPORT_MAX_BYTES) return void res.writeHead(413).end();
      try {
        keepSpans(file, fromOtlp(JSON.parse(Buffer.concat(chunks).toString("utf8"))), maxSpans);
      } catch {
        return void res.writeHead(400).end();
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
