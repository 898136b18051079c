import { shellQuote } from "@duet/shared";
import { toBase64 } from "../../src/sandbox/container-parts.ts";

/** Sends a request to the bubblewrap executor (its token added). */
export type ToExecutor = (path: string, init: { method: string; body?: BodyInit; headers?: Record<string, string> }) => Promise<Response>;

/** Where the container's workspace is; the executor's files API takes paths relative to it. */
const WORKSPACE = "/workspace";
/** Bytes per `chunk` event of a streamed read (the container sends its file in pieces too). */
const READ_CHUNK_BYTES = 64 * 1024;

const encoder = new TextEncoder();

/**
 * The container's file API, as far as the SDK's `mkdir`, `writeFile`,
 * `readFileStream` and `listFiles` reach it (paths and bodies are the SDK's
 * FileClient's), answered by the executor's workspace files API:
 *
 *   POST /api/mkdir       {path, sessionId, recursive}        → {success, path}
 *   POST /api/write       {path, content, sessionId, encoding} → {success, path}
 *   POST /api/read/stream {path, sessionId}                   → SSE: metadata, chunk (base64), complete
 *   POST /api/list-files  {path, sessionId, options}          → {success, path, files: [{name, type, size, ...}], count}
 *
 * Only paths in the workspace exist here (a container has more, which Duet
 * never touches). A missing file is the container's 404 FILE_NOT_FOUND.
 */
export class StandInFiles {
  constructor(private readonly toExecutor: ToExecutor) {}

  /** The answer to a file API request, or null when `path` is not one. */
  async handle(request: Request, path: string): Promise<Response | null> {
    if (request.method !== "POST" || !["/api/mkdir", "/api/write", "/api/read/stream", "/api/list-files"].includes(path)) return null;
    const body = (await request.json()) as { path: string; sessionId: string; content?: string; encoding?: string; recursive?: boolean };
    const rel = relative(body.path);
    if (rel === null) return failure(400, "INVALID_PATH", `the stand-in container has only ${WORKSPACE}: ${body.path}`);
    const session = encodeURIComponent(body.sessionId);
    if (path === "/api/mkdir") {
      const res = await this.toExecutor("/api/execute", {
        method: "POST",
        body: JSON.stringify({ command: `mkdir ${body.recursive ? "-p " : ""}-- ${shellQuote(body.path)}`, sessionId: body.sessionId }),
        headers: { "content-type": "application/json" },
      });
      const r = (await res.json()) as { exitCode: number; stderr: string };
      if (r.exitCode !== 0) return failure(500, "FILESYSTEM_ERROR", r.stderr);
      return Response.json({ success: true, path: body.path, recursive: Boolean(body.recursive), timestamp: now() });
    }
    if (path === "/api/write") {
      const bytes = body.encoding === "base64" ? fromBase64(body.content ?? "") : encoder.encode(body.content ?? "");
      const res = await this.toExecutor(`/api/sessions/${session}/files/${encodePath(rel)}`, { method: "PUT", body: bytes });
      if (!res.ok) return failure(res.status, "FILESYSTEM_ERROR", await res.text());
      return Response.json({ success: true, path: body.path, timestamp: now() });
    }
    if (path === "/api/read/stream") {
      const res = await this.toExecutor(`/api/sessions/${session}/files/${encodePath(rel)}`, { method: "GET" });
      if (res.status === 404) return failure(404, "FILE_NOT_FOUND", `File not found: ${body.path}`);
      if (!res.ok) return failure(res.status, "FILESYSTEM_ERROR", await res.text());
      return readStream(new Uint8Array(await res.arrayBuffer()), res.headers.get("content-type") ?? "application/octet-stream");
    }
    const res = await this.toExecutor(`/api/sessions/${session}/files?dir=${encodeURIComponent(rel)}`, { method: "GET" });
    if (!res.ok) return failure(res.status === 404 ? 404 : 500, res.status === 404 ? "FILE_NOT_FOUND" : "FILESYSTEM_ERROR", await res.text());
    const { entries } = (await res.json()) as { entries: { path: string; bytes: number; kind: "file" | "dir" | "link" | "other"; modifiedAt: string }[] };
    const types = { file: "file", dir: "directory", link: "symlink", other: "other" } as const;
    const files = entries.map((e) => {
      const name = e.path.slice(e.path.lastIndexOf("/") + 1);
      return {
        name,
        absolutePath: `${WORKSPACE}/${e.path}`,
        relativePath: name,
        type: types[e.kind],
        size: e.bytes,
        modifiedAt: e.modifiedAt,
        mode: "rw-r--r--",
        permissions: { readable: true, writable: true, executable: false },
      };
    });
    return Response.json({ success: true, path: body.path, files, count: files.length, timestamp: now() });
  }
}

/** The SSE the container streams a file as: its metadata, base64 chunks, then complete. */
function readStream(bytes: Uint8Array, mimeType: string): Response {
  const events = [`data: ${JSON.stringify({ type: "metadata", mimeType, size: bytes.byteLength, isBinary: true, encoding: "base64" })}\n\n`];
  for (let at = 0; at < bytes.byteLength; at += READ_CHUNK_BYTES) {
    events.push(`data: ${JSON.stringify({ type: "chunk", data: toBase64(bytes.subarray(at, at + READ_CHUNK_BYTES)) })}\n\n`);
  }
  events.push(`data: ${JSON.stringify({ type: "complete", bytesRead: bytes.byteLength })}\n\n`);
  return new Response(encoder.encode(events.join("")), { headers: { "content-type": "text/event-stream" } });
}

/** The path inside the workspace, or null for one outside it. */
function relative(path: string): string | null {
  if (path === WORKSPACE) return "";
  return path.startsWith(`${WORKSPACE}/`) ? path.slice(WORKSPACE.length + 1) : null;
}

function encodePath(rel: string): string {
  return rel.split("/").map(encodeURIComponent).join("/");
}

/** The container's error body (the SDK reads `code` and `message`). */
function failure(status: number, code: string, message: string): Response {
  return Response.json({ code, message, context: {}, httpStatus: status, timestamp: now() }, { status });
}

function fromBase64(text: string): Uint8Array {
  const raw = atob(text);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

function now(): string {
  return new Date().toISOString();
}
