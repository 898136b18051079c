import { getSandbox, streamFile } from "@cloudflare/sandbox";
import { baseOf, contentTypeOf, DuetError, numberedName, parentOf, shellQuote } from "@duet/shared";
import { containerId } from "../sandbox/container-id.ts";
import { fileTooLarge } from "./limit-stream.ts";
import type { FileEntry, FileOut, WorkspaceFiles, WrittenFile } from "./types.ts";

/** Where a room's files live in its container. */
export const CONTAINER_WORKSPACE = "/workspace";
/**
 * The SDK streams a write only over its RPC transport; over HTTP a write is one
 * base64 request. So an upload goes in parts of this size (the Worker holds one
 * at a time), joined and renamed into place in the container once all arrived.
 */
const PART_BYTES = 1024 * 1024;
/** Names tried for an upload whose name is taken (`data-1.csv` … `data-99.csv`): all of them go in one shell command. */
const MAX_NUMBERED = 99;

type RoomSandbox = ReturnType<typeof getSandbox>;

/**
 * Production: a room's files through @cloudflare/sandbox's file API. Inside the
 * container a symlink reads as the sandbox's own view (there is no host file
 * behind it to protect: the container is the sandbox).
 */
export class CloudflareFiles implements WorkspaceFiles {
  constructor(private readonly ns: DurableObjectNamespace) {}

  private async sandbox(roomId: string): Promise<RoomSandbox> {
    return getSandbox(this.ns as never, await containerId(roomId));
  }

  async write(roomId: string, path: string, body: ReadableStream<Uint8Array>, opts: { keepExisting: boolean; maxBytes: number }): Promise<WrittenFile> {
    const sandbox = await this.sandbox(roomId);
    const dir = parentOf(path);
    const dirAbs = dir ? `${CONTAINER_WORKSPACE}/${dir}` : CONTAINER_WORKSPACE;
    const temp = `${dirAbs}/.duet-upload-${crypto.randomUUID()}`;
    await sandbox.mkdir(dirAbs, { recursive: true });
    const digest = new crypto.DigestStream("SHA-256");
    const hashing = digest.getWriter();
    const parts: string[] = [];
    let bytes = 0;
    try {
      for await (const part of inParts(body, PART_BYTES)) {
        bytes += part.byteLength;
        // Before the part is sent: past the limit the parts so far are removed below and nothing is placed.
        if (bytes > opts.maxBytes) throw fileTooLarge(opts.maxBytes);
        await hashing.write(part);
        const name = `${temp}.${parts.length}`;
        await sandbox.writeFile(name, toBase64(part), { encoding: "base64" });
        parts.push(name);
      }
      await hashing.close();
      const name = baseOf(path);
      const candidates = opts.keepExisting ? Array.from({ length: MAX_NUMBERED + 1 }, (_, n) => (n === 0 ? name : numberedName(name, n))) : [name];
      // Joined, then linked to the first free name (ln fails on a taken one) or moved over it.
      const place = opts.keepExisting
        ? `for n in ${candidates.map(shellQuote).join(" ")}; do ln "$t" "$d/$n" 2>/dev/null && { echo "$n"; rm -f "$t"; exit 0; }; done; rm -f "$t"; exit 1`
        : `mv -f "$t" "$d/"${shellQuote(name)} && echo ${shellQuote(name)}`;
      const script = `d=${shellQuote(dirAbs)}; t=${shellQuote(temp)}; cat ${parts.map(shellQuote).join(" ")} /dev/null > "$t" && rm -f ${parts.map(shellQuote).join(" ")} && ${place}`;
      const placed = await sandbox.exec(script);
      if (placed.exitCode !== 0) throw new DuetError("sandbox_error", `the file could not be placed in the workspace: ${placed.stderr.trim().slice(0, 200)}`);
      const used = placed.stdout.trim();
      return { path: dir ? `${dir}/${used}` : used, bytes, sha256: hex(await digest.digest) };
    } catch (err) {
      await sandbox.exec(`rm -f ${[temp, ...parts].map(shellQuote).join(" ")}`).catch(() => undefined);
      throw err;
    }
  }

  async read(roomId: string, path: string): Promise<FileOut> {
    const sandbox = await this.sandbox(roomId);
    const entry = (await this.entries(sandbox, parentOf(path))).find((e) => e.path === path);
    if (!entry) throw new DuetError("not_found", `no such file in the workspace: ${path}`);
    if (entry.kind !== "file") throw new DuetError("invalid_request", "invalid request", { details: { path: [`${path} is not a regular file`] } });
    const chunks = streamFile(await sandbox.readFileStream(`${CONTAINER_WORKSPACE}/${path}`));
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(out) {
        const next = await chunks.next();
        if (next.done) return out.close();
        out.enqueue(typeof next.value === "string" ? encoder.encode(next.value) : next.value);
      },
      async cancel() {
        await chunks.return(undefined as never);
      },
    });
    return { body, bytes: entry.bytes, type: contentTypeOf(path) };
  }

  async list(roomId: string, dir: string): Promise<FileEntry[]> {
    return this.entries(await this.sandbox(roomId), dir);
  }

  private async entries(sandbox: RoomSandbox, dir: string): Promise<FileEntry[]> {
    let listed;
    try {
      listed = await sandbox.listFiles(dir ? `${CONTAINER_WORKSPACE}/${dir}` : CONTAINER_WORKSPACE, { includeHidden: true });
    } catch {
      throw new DuetError("not_found", `no such folder in the workspace: ${dir || "."}`);
    }
    const kinds = { file: "file", directory: "dir", symlink: "link", other: "other" } as const;
    return listed.files
      .filter((f) => !f.name.startsWith(".duet-upload-"))
      .map((f) => ({ path: dir ? `${dir}/${f.name}` : f.name, bytes: f.type === "file" ? f.size : 0, kind: kinds[f.type], modifiedAt: f.modifiedAt }))
      .sort((a, b) => (a.path < b.path ? -1 : 1));
  }
}

/** `body` in pieces of exactly `size` bytes (the last one shorter). */
async function* inParts(body: ReadableStream<Uint8Array>, size: number): AsyncGenerator<Uint8Array> {
  let buffer = new Uint8Array(size);
  let filled = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    for (let at = 0; at < chunk.byteLength; ) {
      const n = Math.min(size - filled, chunk.byteLength - at);
      buffer.set(chunk.subarray(at, at + n), filled);
      filled += n;
      at += n;
      if (filled === size) {
        yield buffer;
        buffer = new Uint8Array(size);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield buffer.subarray(0, filled);
}

function toBase64(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

function hex(digest: ArrayBuffer): string {
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

