import { workspaceFileOrThrow, workspacePathOrThrow } from "../files/workspace-path.ts";
import { fileListSchema, fileWrittenSchema, type FileList, type FileWritten } from "../wire/schemas.ts";
import { isTransient, type WorkerTransport } from "./transport.ts";

/**
 * The workspace files routes over the client's one transport (used through
 * WorkerClient). A body here is bytes streamed both ways: an upload cannot be
 * sent twice, so it is never repeated; a read or a listing is repeated as any
 * read is.
 */

/**
 * The route for a file, its path checked here as the Worker checks it: a `..` would
 * otherwise be resolved away by URL normalisation and name another route
 * (`../messages` is the room's history), so what the Worker refuses is never sent.
 */
const filesPath = (roomId: string, path: string) => `/api/rooms/${encodeURIComponent(roomId)}/files/${workspaceFileOrThrow(path).split("/").map(encodeURIComponent).join("/")}`;

/** Streams `body` into the room's workspace at `path`; `bytes`, when known, is sent as Content-Length. */
export async function putFile(t: WorkerTransport, roomId: string, path: string, body: ReadableStream<Uint8Array> | Uint8Array, opts: { userId?: string; bytes?: number; signal?: AbortSignal } = {}): Promise<FileWritten> {
  const query = opts.userId ? `?userId=${encodeURIComponent(opts.userId)}` : "";
  return t.read(await t.send("PUT", `${filesPath(roomId, path)}${query}`, { upload: { body, bytes: opts.bytes }, ...(opts.signal ? { signal: opts.signal } : {}) }), fileWrittenSchema);
}

/** The file's bytes as a stream, with its length and type. */
export function getFile(t: WorkerTransport, roomId: string, path: string): Promise<{ body: ReadableStream<Uint8Array>; bytes: number; type: string }> {
  return t.retrying(async () => {
    // Unencoded (the transport asks every answer so), so the length is known before the first byte: a chat platform's upload asks for it.
    const res = await t.accepted(await t.send("GET", filesPath(roomId, path)));
    return { body: res.body!, bytes: Number(res.headers.get("content-length")), type: res.headers.get("content-type") ?? "application/octet-stream" };
  }, isTransient);
}

export function listFiles(t: WorkerTransport, roomId: string, dir = ""): Promise<FileList> {
  return t.retrying(async () => t.read(await t.send("GET", `/api/rooms/${encodeURIComponent(roomId)}/files?dir=${encodeURIComponent(workspacePathOrThrow(dir))}`), fileListSchema), isTransient);
}
