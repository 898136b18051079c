import { createHash, randomUUID } from "node:crypto";
import { closeSync, constants, createReadStream, createWriteStream, fchownSync, fstatSync, linkSync, lstatSync, openSync, readdirSync, renameSync, unlinkSync } from "node:fs";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { baseOf, contentTypeOf, numberedName, parentOf } from "@duet/shared";
import { HttpError } from "../http.ts";
import { at, fileErrorOf, openDirBeneath, type Owner } from "./beneath.ts";

/**
 * A workspace's files, read and written from the host without following any
 * link out of it (beneath.ts). Paths are checked relative paths
 * (checkWorkspacePath). Writes are streamed to a hidden temporary name in the
 * target folder and renamed into place once whole and within the limits, so a
 * refused or broken upload leaves nothing behind, and a reader never sees half
 * a file.
 */

export interface FileLimits {
  /** One file in or out (DUET_FILE_MAX_BYTES). */
  fileMaxBytes: number;
  /** The whole workspace (SANDBOX_WORKSPACE_MAX_BYTES). */
  workspaceMaxBytes: number;
}

export interface Written {
  path: string;
  bytes: number;
  sha256: string;
}

export interface Entry {
  path: string;
  bytes: number;
  kind: "file" | "dir" | "link" | "other";
  modifiedAt: string;
}

/**
 * What the file may hold in writes not yet on disk. At the write stream's own
 * 16 KiB every 64 KiB piece of the upload stopped the socket until its write
 * returned; with room for a few, the socket keeps reading while the disk writes
 * (gathered into one writev): 20 MiB in 80 ms against 132 direct, 96 against
 * 161 through the Worker (medians of 8, load average 15).
 */
const WRITE_BUFFER_BYTES = 1024 * 1024;
/**
 * A file read out is read in pieces this big (the default is 64 KiB): a twentieth of the
 * reads and socket writes for a 20 MiB file, 1.5-1.9 times as fast piped to a local client.
 */
const READ_BUFFER_BYTES = 1024 * 1024;
/** Past a limit we read and drop this much more of the body, so the client sees our 413 rather than a reset. */
const DISCARD_MAX_BYTES = 8 * 1024 * 1024;
/** Names tried for an upload whose name is taken (`data-1.csv` … `data-999.csv`). */
const MAX_NUMBERED = 999;
const TEMP_PREFIX = ".duet-upload-";

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_RDONLY, O_NONBLOCK } = constants;

const fileTooLarge = (max: number) => new HttpError(413, `the file is larger than ${max} bytes (DUET_FILE_MAX_BYTES)`);
const workspaceFull = (max: number) => new HttpError(413, `the workspace would grow past ${max} bytes (SANDBOX_WORKSPACE_MAX_BYTES)`);

/**
 * Streams `body` into `path`. `keepExisting`: a taken name is not replaced; the
 * file gets a numbered name instead (uploads). The answer names the path used.
 */
export async function writeFile(
  root: string,
  path: string,
  body: Readable,
  opts: { declaredBytes?: number; limits: FileLimits; owner: Owner | null; keepExisting: boolean },
): Promise<Written> {
  const { limits } = opts;
  const used = workspaceBytes(root);
  const declared = opts.declaredBytes;
  const refusedUpFront =
    declared !== undefined && declared > limits.fileMaxBytes ? fileTooLarge(limits.fileMaxBytes) : declared !== undefined && used + declared > limits.workspaceMaxBytes ? workspaceFull(limits.workspaceMaxBytes) : null;
  if (refusedUpFront) {
    await discard(body);
    throw refusedUpFront;
  }
  const dir = parentOf(path);
  let dirFd: number;
  try {
    dirFd = openDirBeneath(root, dir, { create: true, owner: opts.owner });
  } catch (err) {
    await discard(body);
    throw fileErrorOf(err, dir);
  }
  const temp = `${TEMP_PREFIX}${randomUUID()}`;
  try {
    let fd: number;
    try {
      fd = openSync(at(dirFd, temp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
    } catch (err) {
      await discard(body);
      throw fileErrorOf(err, path);
    }
    if (opts.owner) fchownSync(fd, opts.owner.uid, opts.owner.gid);
    const counter = new LimitedCount(limits.fileMaxBytes, limits.workspaceMaxBytes - used, limits);
    try {
      await pipeline(body, counter, createWriteStream("", { fd, highWaterMark: WRITE_BUFFER_BYTES }));
    } catch (err) {
      unlinkQuietly(at(dirFd, temp));
      // The room's own filesystem filled before the byte count did (a filesystem keeps room for itself).
      const code = (err as NodeJS.ErrnoException).code;
      throw code === "ENOSPC" || code === "EDQUOT" ? workspaceFull(limits.workspaceMaxBytes) : err instanceof HttpError || !code ? err : fileErrorOf(err, path);
    }
    const name = placeFile(dirFd, temp, baseOf(path), opts.keepExisting, path);
    return { path: dir ? `${dir}/${name}` : name, bytes: counter.bytes, sha256: counter.hash.digest("hex") };
  } finally {
    closeSync(dirFd);
  }
}

/** Moves the whole temporary file to its name; under `keepExisting`, to the first free numbered name. */
function placeFile(dirFd: number, temp: string, name: string, keepExisting: boolean, path: string): string {
  try {
    if (!keepExisting) {
      // rename(2) replaces a file or a symlink of that name, never what a symlink points at.
      renameSync(at(dirFd, temp), at(dirFd, name));
      return name;
    }
    for (let n = 0; n <= MAX_NUMBERED; n++) {
      const candidate = n === 0 ? name : numberedName(name, n);
      try {
        // link(2) fails on a taken name (any kind, a symlink included): no check-then-write race.
        linkSync(at(dirFd, temp), at(dirFd, candidate));
        return candidate;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
    }
    throw new HttpError(409, `${MAX_NUMBERED} files named like ${name} are already there`);
  } catch (err) {
    throw fileErrorOf(err, path);
  } finally {
    unlinkQuietly(at(dirFd, temp));
  }
}

/** Opens `path` to be streamed out: a regular file within the limit. */
export function openFile(root: string, path: string, fileMaxBytes: number): { stream: Readable; bytes: number; type: string } {
  let dirFd: number;
  try {
    dirFd = openDirBeneath(root, parentOf(path));
  } catch (err) {
    throw fileErrorOf(err, path);
  }
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO the sandbox made would otherwise hang this open until someone writes to it.
    fd = openSync(at(dirFd, baseOf(path)), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (err) {
    throw fileErrorOf(err, path);
  } finally {
    closeSync(dirFd);
  }
  const st = fstatSync(fd);
  const refused = st.isDirectory()
    ? new HttpError(400, `${path} is a folder; list it with ?dir=${path}`)
    : !st.isFile()
      ? new HttpError(400, `${path} is not a regular file`)
      : st.size > fileMaxBytes
        ? new HttpError(413, `${path} is ${st.size} bytes, over the ${fileMaxBytes}-byte limit (DUET_FILE_MAX_BYTES)`)
        : null;
  if (refused) {
    closeSync(fd);
    throw refused;
  }
  return { stream: createReadStream("", { fd, end: Math.max(0, st.size - 1), autoClose: true, highWaterMark: READ_BUFFER_BYTES }), bytes: st.size, type: contentTypeOf(path) };
}

/** The entries of folder `dir`, by name; links are listed as links, never followed. */
export function listDir(root: string, dir: string): Entry[] {
  let dirFd: number;
  try {
    dirFd = openDirBeneath(root, dir);
  } catch (err) {
    throw fileErrorOf(err, dir || ".");
  }
  try {
    const entries: Entry[] = [];
    // An upload still arriving (or being dropped) is not a file yet.
    for (const name of readdirSync(`/proc/self/fd/${dirFd}`).sort().filter((n) => !n.startsWith(TEMP_PREFIX))) {
      let st;
      try {
        st = lstatSync(at(dirFd, name));
      } catch {
        continue; // removed while we listed
      }
      const kind = st.isFile() ? "file" : st.isDirectory() ? "dir" : st.isSymbolicLink() ? "link" : "other";
      entries.push({ path: dir ? `${dir}/${name}` : name, bytes: st.isFile() ? st.size : 0, kind, modifiedAt: st.mtime.toISOString() });
    }
    return entries;
  } finally {
    closeSync(dirFd);
  }
}

/** Bytes of the regular files under `root`, links not followed. A walk: fine for a room's workspace. */
export function workspaceBytes(root: string): number {
  let total = 0;
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const p = `${dir}/${name}`;
      let st;
      try {
        st = lstatSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) total += st.size;
    }
  };
  walk(root);
  return total;
}

/**
 * Counts and hashes what passes; past either limit it keeps nothing more and
 * reads on (up to DISCARD_MAX_BYTES) so the 413 reaches a client still sending.
 */
class LimitedCount extends Transform {
  bytes = 0;
  readonly hash = createHash("sha256");
  private refused: HttpError | null = null;
  private dropped = 0;

  constructor(private readonly fileMax: number, private readonly room: number, private readonly limits: FileLimits) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null, data?: Buffer) => void): void {
    if (this.refused) {
      this.dropped += chunk.length;
      return done(this.dropped > DISCARD_MAX_BYTES ? this.refused : null);
    }
    this.bytes += chunk.length;
    if (this.bytes > this.fileMax) this.refused = fileTooLarge(this.limits.fileMaxBytes);
    else if (this.bytes > this.room) this.refused = workspaceFull(this.limits.workspaceMaxBytes);
    if (this.refused) return done();
    this.hash.update(chunk);
    done(null, chunk);
  }

  override _flush(done: (err?: Error | null) => void): void {
    done(this.refused);
  }
}

/** Reads and drops a body we refused, up to DISCARD_MAX_BYTES, so the client gets the answer. */
async function discard(body: Readable): Promise<void> {
  let seen = 0;
  for await (const chunk of body) {
    seen += (chunk as Buffer).length;
    if (seen > DISCARD_MAX_BYTES) {
      body.destroy();
      return;
    }
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
