/**
 * Paths in the workspace files API: always relative to the room's workspace.
 * The Worker, both executors and the bots check them with this one function,
 * so a path refused at one end is refused at every end.
 */

import { DuetError } from "../wire/errors.ts";

/** Longest path accepted (Linux's PATH_MAX). */
export const WORKSPACE_PATH_MAX_BYTES = 4096;
/** Longest name of one file or folder in a path (Linux's NAME_MAX). */
export const WORKSPACE_NAME_MAX_BYTES = 255;

/** NUL, C0 controls and DEL: never in a path (they hide in logs and break shells). */
const CONTROL = /[\u0000-\u001f\u007f]/;

export type CheckedPath = { ok: true; path: string } | { ok: false; error: string };

/**
 * `raw` as a clean relative path (`a/b.txt`; "" is the workspace itself), or why
 * not: absolute paths, `..`, NUL and control characters, and a name longer
 * than the filesystem takes are refused. `.` parts,
 * repeated and trailing slashes are dropped.
 */
export function checkWorkspacePath(raw: string): CheckedPath {
  if (CONTROL.test(raw)) return { ok: false, error: "path must not contain NUL or control characters" };
  if (raw.startsWith("/") || raw.startsWith("\\")) return { ok: false, error: "path must be relative to the workspace, not absolute" };
  if (new TextEncoder().encode(raw).byteLength > WORKSPACE_PATH_MAX_BYTES) return { ok: false, error: `path must be at most ${WORKSPACE_PATH_MAX_BYTES} bytes` };
  const parts = raw.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.some((p) => p === "..")) return { ok: false, error: "path must not contain '..'" };
  if (parts.some((p) => new TextEncoder().encode(p).byteLength > WORKSPACE_NAME_MAX_BYTES)) return { ok: false, error: `each file or folder name in the path must be at most ${WORKSPACE_NAME_MAX_BYTES} bytes` };
  return { ok: true, path: parts.join("/") };
}

/** The error the Worker answers a refused path with (400, the reason under details.path); the client throws the same before sending. */
export const invalidPathError = (why: string) => new DuetError("invalid_request", "invalid request", { details: { path: [why] } });

/** `raw` checked, or the Worker's invalidPathError for it. */
export function workspacePathOrThrow(raw: string): string {
  const result = checkWorkspacePath(raw);
  if (!result.ok) throw invalidPathError(result.error);
  return result.path;
}

/** `raw` checked as workspacePathOrThrow does, and it must name something (not the workspace itself). */
export function workspaceFileOrThrow(raw: string): string {
  const path = workspacePathOrThrow(raw);
  if (!path) throw invalidPathError("name a file after /files/");
  return path;
}

/** The parent folder of a checked path ("" for a top-level name). */
export function parentOf(path: string): string {
  const at = path.lastIndexOf("/");
  return at < 0 ? "" : path.slice(0, at);
}

/** The last part of a checked path. */
export function baseOf(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
