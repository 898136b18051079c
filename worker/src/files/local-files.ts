import { DuetError, sandboxName } from "@duet/shared";
import { fileTooLarge, limitStream } from "./limit-stream.ts";
import type { FileEntry, FileOut, WorkspaceFiles, WrittenFile } from "./types.ts";

/** How long a file call may take: 25 MiB at a slow disk's pace, with room to spare. */
const FILE_CALL_TIMEOUT_MS = 120_000;

/**
 * The local executor's files API (sandbox/src/files) over HTTP. Bodies stream
 * through in both directions; the executor's 400, 404 and 413 keep their status
 * and message, as the person's mistake they describe is the same here.
 */
export class LocalFiles implements WorkspaceFiles {
  private readonly base: string;

  constructor(baseUrl: string, private readonly token?: string) {
    this.base = baseUrl.replace(/\/+$/, "");
  }

  private url(roomId: string, path: string): string {
    const encoded = path.split("/").map(encodeURIComponent).join("/");
    return `${this.base}/api/sessions/${encodeURIComponent(sandboxName(roomId))}/files${encoded ? `/${encoded}` : ""}`;
  }

  async write(roomId: string, path: string, body: ReadableStream<Uint8Array>, opts: { keepExisting: boolean; maxBytes: number; bytes?: number }): Promise<WrittenFile> {
    // Past the limit the request to the executor is torn down, so it drops its temporary file.
    const over = new AbortController();
    // A declared length within the limit is the limit: the runtime ends the body there, so the bytes
    // go to the executor natively, never through a JavaScript chunk at a time (about 3× faster in workerd).
    const limited = opts.bytes !== undefined && opts.bytes <= opts.maxBytes ? null : limitStream(body, opts.maxBytes, () => over.abort());
    try {
      const res = await this.call(`${this.url(roomId, path)}${opts.keepExisting ? "?keep=1" : ""}`, { method: "PUT", body: limited?.stream ?? body, signal: over.signal });
      return (await res.json()) as WrittenFile;
    } catch (err) {
      // The count lets the upload go before the route drains what is left of it.
      await limited?.stop();
      if (over.signal.aborted) throw fileTooLarge(opts.maxBytes);
      throw err;
    }
  }

  async read(roomId: string, path: string): Promise<FileOut> {
    const res = await this.call(this.url(roomId, path), { method: "GET" });
    return { body: res.body!, bytes: Number(res.headers.get("content-length")), type: res.headers.get("content-type") ?? "application/octet-stream" };
  }

  async list(roomId: string, dir: string): Promise<FileEntry[]> {
    const res = await this.call(`${this.url(roomId, "")}?dir=${encodeURIComponent(dir)}`, { method: "GET" });
    return ((await res.json()) as { entries: FileEntry[] }).entries;
  }

  private async call(url: string, init: RequestInit): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(url, {
        ...init,
        headers: this.token ? { authorization: `Bearer ${this.token}` } : {},
        signal: init.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(FILE_CALL_TIMEOUT_MS)]) : AbortSignal.timeout(FILE_CALL_TIMEOUT_MS),
      });
    } catch {
      throw new DuetError("sandbox_error", "the sandbox executor cannot be reached");
    }
    if (res.ok) return res;
    const message = await res.json().then((b) => (b as { error?: string }).error, () => undefined);
    await res.body?.cancel().catch(() => undefined);
    if (res.status === 400) throw new DuetError("invalid_request", message ?? "invalid path", { details: { path: [message ?? "invalid path"] } });
    if (res.status === 404) throw new DuetError("not_found", message ?? "no such file in the workspace");
    if (res.status === 413) throw new DuetError("payload_too_large", message ?? "the file is too large");
    throw new DuetError("sandbox_error", `the sandbox executor answered HTTP ${res.status}${message ? `: ${message}` : ""}`);
  }
}
