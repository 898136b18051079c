import { DuetError } from "./errors.ts";
import { fileListSchema, fileWrittenSchema, type FileList, type FileWritten } from "./schemas.ts";

/**
 * The workspace files routes, streamed both ways (used through WorkerClient).
 * Kept apart from the JSON calls: a body here is a stream that cannot be sent
 * twice, so nothing is retried, and an answer is bytes, not JSON.
 */
export interface FilesTransport {
  base: string;
  token: string;
  fetch: typeof fetch;
  timeoutMs: number;
  errorOf: (status: number, headers: Headers, json: unknown) => DuetError;
}

const filesPath = (roomId: string, path: string) => `/api/rooms/${encodeURIComponent(roomId)}/files/${path.split("/").map(encodeURIComponent).join("/")}`;

/** Streams `body` into the room's workspace at `path`; `bytes`, when known, is sent as Content-Length. */
export async function putFile(t: FilesTransport, roomId: string, path: string, body: ReadableStream<Uint8Array> | Uint8Array, opts: { userId?: string; bytes?: number } = {}): Promise<FileWritten> {
  const query = opts.userId ? `?userId=${encodeURIComponent(opts.userId)}` : "";
  const headers: Record<string, string> = { authorization: `Bearer ${t.token}`, "content-type": "application/octet-stream" };
  if (opts.bytes !== undefined) headers["content-length"] = String(opts.bytes);
  const res = await send(t, `${filesPath(roomId, path)}${query}`, { method: "PUT", headers, body, duplex: "half" } as RequestInit);
  return parsed(t, res, fileWrittenSchema);
}

/** The file's bytes as a stream, with its length and type. */
export async function getFile(t: FilesTransport, roomId: string, path: string): Promise<{ body: ReadableStream<Uint8Array>; bytes: number; type: string }> {
  const res = await send(t, filesPath(roomId, path), { headers: { authorization: `Bearer ${t.token}` } });
  if (!res.ok) throw await failure(t, res);
  return { body: res.body!, bytes: Number(res.headers.get("content-length")), type: res.headers.get("content-type") ?? "application/octet-stream" };
}

export async function listFiles(t: FilesTransport, roomId: string, dir = ""): Promise<FileList> {
  const res = await send(t, `/api/rooms/${encodeURIComponent(roomId)}/files?dir=${encodeURIComponent(dir)}`, { headers: { authorization: `Bearer ${t.token}` } });
  return parsed(t, res, fileListSchema);
}

async function send(t: FilesTransport, path: string, init: RequestInit): Promise<Response> {
  try {
    return await t.fetch(`${t.base}${path}`, { ...init, signal: AbortSignal.timeout(t.timeoutMs) });
  } catch (err) {
    const name = (err as Error)?.name;
    if (name === "TimeoutError" || name === "AbortError") throw new DuetError("worker_timeout", `no answer from the Worker within ${Math.round(t.timeoutMs / 1000)} s`);
    throw new DuetError("worker_unreachable", `cannot reach the Worker at ${t.base}`);
  }
}

async function parsed<T>(t: FilesTransport, res: Response, schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } }): Promise<T> {
  if (!res.ok) throw await failure(t, res);
  const result = schema.safeParse(await res.json().catch(() => undefined));
  if (!result.success) throw new DuetError("bad_response", "the Worker's answer did not match the API");
  return result.data;
}

async function failure(t: FilesTransport, res: Response): Promise<DuetError> {
  return t.errorOf(res.status, res.headers, await res.json().catch(() => undefined));
}
