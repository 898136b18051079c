import { getSandbox, streamFile } from "@cloudflare/sandbox";
import { baseOf, contentTypeOf, DuetError, numberedName, parentOf, shellQuote } from "@duet/shared";
import { containerId } from "../sandbox/container-id.ts";
import { writeParts } from "../sandbox/container-parts.ts";
import type { WorkspaceKeeper } from "../sandbox/workspace-keeper.ts";
import { fileTooLarge } from "./limit-stream.ts";
import type { FileEntry, FileOut, WorkspaceFiles, WrittenFile } from "./types.ts";

/** Where a room's files live in its container. */
export const CONTAINER_WORKSPACE = "/workspace";
/** Names tried for an upload whose name is taken (`data-1.csv` … `data-99.csv`): all of them go in one shell command. */
const MAX_NUMBERED = 99;

type RoomSandbox = ReturnType<typeof getSandbox>;

/**
 * Production: a room's files through @cloudflare/sandbox's file API. Inside the
 * container a symlink reads as the sandbox's own view (there is no host file
 * behind it to protect: the container is the sandbox). With a `keeper`, a new
 * container's workspace is restored from its saved copy before any of these
 * reads or writes it.
 */
export class CloudflareFiles implements WorkspaceFiles {
  constructor(private readonly ns: DurableObjectNamespace, private readonly keeper: WorkspaceKeeper | null = null) {}

  private async sandbox(roomId: string): Promise<RoomSandbox> {
    const id = await containerId(roomId);
    const sandbox = getSandbox(this.ns as never, id);
    try {
      await this.keeper?.ensure(roomId, id, sandbox);
    } catch (err) {
      throw new DuetError("sandbox_error", (err as Error).message);
    }
    return sandbox;
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
      // Sent in parts (container-parts.ts), joined and renamed into place once all arrived.
      await writeParts(sandbox, temp, body, parts, async (part) => {
        bytes += part.byteLength;
        // Before the part is sent: past the limit the parts so far are removed below and nothing is placed.
        if (bytes > opts.maxBytes) throw fileTooLarge(opts.maxBytes);
        await hashing.write(part);
      });
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
    const decoded = new ReadableStream<Uint8Array>({
      async pull(out) {
        const next = await chunks.next();
        if (next.done) return out.close();
        out.enqueue(typeof next.value === "string" ? encoder.encode(next.value) : next.value);
      },
      async cancel() {
        await chunks.return(undefined as never);
      },
    });
    // Of a known length, so the answer carries Content-Length (a plain stream goes out chunked) and a short read fails.
    const body = decoded.pipeThrough(new FixedLengthStream(entry.bytes));
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

function hex(digest: ArrayBuffer): string {
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

