import { streamFile } from "@cloudflare/sandbox";
import { shellQuote } from "@duet/shared";
import { writeParts, type PartWriter } from "./container-parts.ts";

/**
 * A room's workspace kept beyond its container (production): one gzipped tar
 * per room in an R2 bucket. A container's disk is gone after it sleeps, crashes
 * or is replaced by a deploy; the tar is made in the container, streamed to R2,
 * and unpacked into the next container before its first command.
 *
 * Duet's own bookkeeping lives in KEEP_DIR, which is never saved:
 *   ready   this container's workspace was restored (or started empty on purpose)
 *   saved   when the last save began: nothing newer means nothing to save
 *   saving  when the save under way began (becomes `saved` once R2 has it)
 *   save.tgz, restore.*  the archive on its way out or in
 * A container without `ready` is never saved from: its empty workspace must not
 * replace the saved one.
 */

/** The workspace in the container. */
export const WORKSPACE = "/workspace";
/** Relative to the workspace. */
const KEEP_DIR = ".duet/keep";
export const READY_FILE = `${WORKSPACE}/${KEEP_DIR}/ready`;
const ARCHIVE = `${WORKSPACE}/${KEEP_DIR}/save.tgz`;
/** A shell test, true when nothing in the workspace is newer than the last save (and there was one). */
export const UNCHANGED_TEST = `[ -e ${WORKSPACE}/${KEEP_DIR}/saved ] && [ -z "$(find ${WORKSPACE} -path ${WORKSPACE}/${KEEP_DIR} -prune -o -newer ${WORKSPACE}/${KEEP_DIR}/saved -print -quit 2>/dev/null)" ]`;
const RESTORE_PREFIX = `${WORKSPACE}/${KEEP_DIR}/restore`;

/** What saving and restoring need from a sandbox: the SDK's stub, or the Sandbox Durable Object itself. */
export interface ArchiveBox extends PartWriter {
  exec(command: string): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  readFileStream(path: string): Promise<ReadableStream<Uint8Array>>;
}

/** What a save did: `unchanged` and `unrestored` upload nothing. */
export type SaveResult = { kind: "saved"; bytes: number } | { kind: "unchanged" } | { kind: "unrestored" };

/** A save or restore that failed; its message says why, for a person. */
export class WorkspaceKeepError extends Error {}

/** The room's saved copy in the bucket (by its container id, which the Sandbox object also knows). */
export function savedKey(containerId: string): string {
  return `workspaces/${containerId}.tar.gz`;
}

/**
 * Saves the workspace to `key` unless nothing in it changed since the last
 * save. Refused with a WorkspaceKeepError when the workspace (Duet's own files
 * aside) is over `maxBytes` (SANDBOX_WORKSPACE_MAX_BYTES): the saved copy stays
 * the previous one.
 */
export async function saveWorkspace(box: ArchiveBox, bucket: R2Bucket, key: string, maxBytes: number): Promise<SaveResult> {
  const w = WORKSPACE;
  const k = `${WORKSPACE}/${KEEP_DIR}`;
  // One request: the checks, the size, the tar (exit 1 is tar's "a file changed as it was read": the archive is whole).
  // Absolute paths and no `cd`: a shell that keeps its working directory (the session's, or withShellState's) must not move.
  const made = await box.exec(
    [
      `[ -e ${k}/ready ] || { echo unrestored; exit 0; }`,
      `if ${UNCHANGED_TEST}; then echo unchanged; exit 0; fi`,
      `size=$(( $(du -sb ${w} | cut -f1) - $(du -sb ${k} | cut -f1) ))`,
      `if [ "$size" -gt ${maxBytes} ]; then echo "over $size"; exit 0; fi`,
      `touch ${k}/saving && tar -czf ${ARCHIVE} -C ${w} --exclude=./${KEEP_DIR} .; s=$?`,
      `if [ $s -gt 1 ]; then rm -f ${ARCHIVE} ${k}/saving; exit $s; fi`,
      `echo "archive $(stat -c %s ${ARCHIVE})"`,
    ].join("\n"),
  );
  const said = made.stdout.trim();
  if (made.exitCode !== 0) throw new WorkspaceKeepError(`the workspace could not be archived: ${(made.stderr.trim() || `exit ${made.exitCode}`).slice(0, 200)}`);
  if (said === "unchanged" || said === "unrestored") return { kind: said };
  const over = /^over (\d+)$/.exec(said);
  if (over) throw new WorkspaceKeepError(`the workspace is ${over[1]} bytes, over the ${maxBytes}-byte limit (SANDBOX_WORKSPACE_MAX_BYTES), so it was not saved`);
  const bytes = Number(/^archive (\d+)$/.exec(said)?.[1] ?? NaN);
  if (!Number.isSafeInteger(bytes)) throw new WorkspaceKeepError(`the workspace could not be archived: the container said ${said.slice(0, 100)}`);
  try {
    // R2 takes a stream only with its length known up front; the tar's size is.
    const sized = new FixedLengthStream(bytes);
    const sent = bucket.put(key, sized.readable, { httpMetadata: { contentType: "application/gzip" } });
    await pipeFile(await box.readFileStream(ARCHIVE), sized.writable);
    await sent;
  } catch (err) {
    await box.exec(`rm -f ${ARCHIVE} ${k}/saving`).catch(() => undefined);
    throw new WorkspaceKeepError(`the workspace could not be stored: ${(err as Error).message}`.slice(0, 300));
  }
  // Only now is the archive's start time the last save's.
  await box.exec(`rm -f ${ARCHIVE} && mv -f ${k}/saving ${k}/saved`);
  return { kind: "saved", bytes };
}

/**
 * Fills a container's workspace from the saved copy (or leaves it empty when
 * there is none) and marks it ready. Files already there stay unless the
 * copy has the same name.
 */
export async function restoreWorkspace(box: ArchiveBox, bucket: R2Bucket, key: string): Promise<{ bytes: number }> {
  const k = `${WORKSPACE}/${KEEP_DIR}`;
  let saved: R2ObjectBody | null;
  try {
    saved = await bucket.get(key);
  } catch (err) {
    throw new WorkspaceKeepError(`the workspace's saved copy could not be read: ${(err as Error).message}`.slice(0, 300));
  }
  if (!saved) {
    await mustRun(box, `mkdir -p ${k} && touch ${k}/ready`, "the workspace could not be prepared");
    return { bytes: 0 };
  }
  const prefix = `${RESTORE_PREFIX}-${crypto.randomUUID()}`;
  const parts: string[] = [];
  try {
    await mustRun(box, `mkdir -p ${k}`, "the workspace could not be prepared");
    await writeParts(box, prefix, saved.body, parts);
    const names = parts.map(shellQuote).join(" ");
    // Unpacked, then marked: a restore cut short leaves no `ready`, so the next command restores again.
    await mustRun(box, `cat ${names} /dev/null | tar -xzf - -C ${WORKSPACE} && rm -f ${names} && touch ${k}/ready ${k}/saved`, "the workspace's saved copy could not be unpacked");
    return { bytes: saved.size };
  } catch (err) {
    if (parts.length) await box.exec(`rm -f ${parts.map(shellQuote).join(" ")}`).catch(() => undefined);
    if (err instanceof WorkspaceKeepError) throw err;
    throw new WorkspaceKeepError(`the workspace could not be restored: ${(err as Error).message}`.slice(0, 300));
  }
}

async function mustRun(box: ArchiveBox, command: string, what: string): Promise<void> {
  const r = await box.exec(command);
  if (r.exitCode !== 0) throw new WorkspaceKeepError(`${what}: ${(r.stderr.trim() || `exit ${r.exitCode}`).slice(0, 200)}`);
}

/** The SDK's file stream (events, base64 for binary) as bytes into `out`. */
async function pipeFile(stream: ReadableStream<Uint8Array>, out: WritableStream<Uint8Array>): Promise<void> {
  const writer = out.getWriter();
  const encoder = new TextEncoder();
  try {
    for await (const chunk of streamFile(stream)) await writer.write(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
    await writer.close();
  } catch (err) {
    await writer.abort(err).catch(() => undefined);
    throw err;
  }
}
