import { closeSync, constants, fchownSync, mkdirSync, openSync } from "node:fs";
import { HttpError } from "../http.ts";

/**
 * Opening a path inside a workspace without ever following a link out of it.
 *
 * A workspace is written by the sandbox, which can make any name in it a
 * symlink (`ln -s /etc/passwd notes.txt`) or swap a folder for one while a file
 * request is under way. So a path is never handed to the kernel whole: it is
 * walked one part at a time, each part opened relative to the folder opened
 * before it (`/proc/self/fd/<fd>/<part>` is Linux's openat(2) for Node, which
 * has none), every open with O_NOFOLLOW. A part that is a symlink fails with
 * ELOOP instead of being followed, and a folder swapped after it was opened
 * does not matter: the walk holds the folder itself, not its name. This is
 * race-free where realpath-then-open is not (the sandbox can swap a part
 * between the check and the open). Hard links cannot reach host files: the
 * workspace is its own mount in the sandbox, and link(2) across mounts fails.
 */

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = constants;

/** The path of `name` inside an open folder, for the *Sync calls that take paths. */
export const at = (dirFd: number, name: string) => `/proc/self/fd/${dirFd}/${name}`;

export interface Owner {
  uid: number;
  gid: number;
}

/** What a failed open of a workspace path means to the person who asked. */
export function fileErrorOf(err: unknown, path: string): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return new HttpError(404, `no such file or folder in the workspace: ${path}`);
  if (code === "ELOOP") return new HttpError(400, `${path} goes through a symbolic link; only files and folders inside the workspace can be read or written`);
  if (code === "ENOTDIR") return new HttpError(400, `a part of ${path} is a file or a link, not a folder`);
  if (code === "EISDIR") return new HttpError(400, `${path} is a folder`);
  if (code === "ENAMETOOLONG") return new HttpError(400, `a name in ${path} is longer than the workspace's filesystem takes`);
  // Out of blocks or of inodes (a workspace of many small files): full either way.
  if (code === "ENOSPC" || code === "EDQUOT") return new HttpError(413, "the workspace is full: no room for another file or folder");
  // Anything else is ours; its message would quote the host path we opened it by (`/proc/self/fd/…`).
  return new Error(`cannot write or read ${path} in the workspace (${code ?? (err as Error).message})`);
}

/**
 * Opens the folder `dir` (a checked relative path, "" for the workspace) part by
 * part under `root`, creating missing parts when `create` is set (owned by
 * `owner` when given). The caller closes the returned fd.
 */
export function openDirBeneath(root: string, dir: string, opts: { create?: boolean; owner?: Owner | null } = {}): number {
  let fd = openSync(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  try {
    for (const part of dir ? dir.split("/") : []) {
      let next: number;
      try {
        next = openSync(at(fd, part), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      } catch (err) {
        if (!opts.create || (err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
        // mkdir never follows a final symlink; a race that makes one in between fails the open below.
        mkdirSync(at(fd, part), { mode: 0o755 });
        next = openSync(at(fd, part), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        if (opts.owner) fchownSync(next, opts.owner.uid, opts.owner.gid);
      }
      closeSync(fd);
      fd = next;
    }
    return fd;
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}
