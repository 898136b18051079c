import { INVISIBLE } from "../text/sanitize.ts";

/**
 * Names people give their files, made safe to be one file in `uploads/`: the
 * bots and the Worker use this one function, so a name means the same file at
 * both ends.
 */

/** Where people's uploads land in the workspace. */
export const UPLOADS_DIR = "uploads";
/** Longest file name most filesystems take (ext4, overlayfs), in bytes. */
export const FILE_NAME_MAX_BYTES = 255;

const CONTROL = /[\u0000-\u001f\u007f]/g;
const encoder = new TextEncoder();
const bytes = (s: string) => encoder.encode(s).byteLength;

/**
 * One safe file name: separators (`/`, `\`) become `_`, control characters go,
 * and so do invisible ones (zero-width characters, bidirectional overrides such
 * as U+202E, which would let `exe.txt` read as `txt.exe`),
 * a name of only dots (`.`, `..`) or nothing becomes `file`, and a name over 255
 * bytes is cut (keeping its extension, never inside a character).
 */
export function safeFileName(name: string): string {
  let clean = name.replace(CONTROL, "").replace(INVISIBLE, "").replace(/[/\\]/g, "_").trim();
  if (/^\.*$/.test(clean)) clean = "file";
  if (bytes(clean) <= FILE_NAME_MAX_BYTES) return clean;
  const dot = clean.lastIndexOf(".");
  const ext = dot > 0 && bytes(clean.slice(dot)) <= 16 ? clean.slice(dot) : "";
  return cutToBytes(clean.slice(0, clean.length - ext.length), FILE_NAME_MAX_BYTES - bytes(ext)) + ext;
}

/** `data.csv` → `data-1.csv` (n = 1), for a name already taken; still within 255 bytes. */
export function numberedName(name: string, n: number): string {
  const dot = name.lastIndexOf(".");
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
  const suffix = `-${n}${ext}`;
  return cutToBytes(stem, FILE_NAME_MAX_BYTES - bytes(suffix)) + suffix;
}

/** The longest start of `text` that is at most `max` bytes of UTF-8, whole characters only. */
function cutToBytes(text: string, max: number): string {
  let out = "";
  let size = 0;
  for (const ch of text) {
    const n = bytes(ch);
    if (size + n > max) break;
    out += ch;
    size += n;
  }
  return out;
}
