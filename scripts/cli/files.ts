import { createReadStream, createWriteStream, renameSync, statSync, unlinkSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { DuetError, safeFileName, UPLOADS_DIR } from "@duet/shared";
import type { CliContext } from "./commands.ts";

/**
 * `duet get ROOM PATH [OUT]` and `duet put ROOM FILE [PATH]`: a workspace file
 * streamed to or from disk, never held whole in memory. Resolve to the exit code.
 */

export async function getFile(cmd: { room: string; path: string; out?: string }, ctx: CliContext): Promise<number> {
  const out = resolve(cmd.out ?? safeFileName(basename(cmd.path)));
  // Written beside and renamed, so a download cut off leaves no half file under the name asked for.
  const partial = join(dirname(out), `.${basename(out)}.duet-partial`);
  try {
    const file = await ctx.client.getFile(cmd.room, cmd.path);
    await pipeline(Readable.fromWeb(file.body as never), createWriteStream(partial));
    renameSync(partial, out);
    ctx.out(`${cmd.path} → ${out} (${file.bytes} bytes, ${file.type})`);
    return 0;
  } catch (err) {
    try {
      unlinkSync(partial);
    } catch {
      // Never created.
    }
    return failed(err, ctx);
  }
}

export async function putFile(cmd: { room: string; file: string; path?: string }, ctx: CliContext): Promise<number> {
  let bytes: number;
  try {
    const st = statSync(cmd.file);
    if (!st.isFile()) throw new Error(`${cmd.file} is not a file`);
    bytes = st.size;
  } catch (err) {
    ctx.err(ctx.style.red(`duet: cannot read ${cmd.file}: ${(err as Error).message.replace(/^ENOENT: /, "")}`));
    return 1;
  }
  const path = cmd.path ?? `${UPLOADS_DIR}/${safeFileName(basename(cmd.file))}`;
  try {
    const body = Readable.toWeb(createReadStream(cmd.file)) as ReadableStream<Uint8Array>;
    const written = await ctx.client.putFile(cmd.room, path, body, { userId: ctx.userId, bytes });
    ctx.out(`${cmd.file} → ${written.path} (${written.bytes} bytes, sha256 ${written.sha256})`);
    return 0;
  } catch (err) {
    return failed(err, ctx);
  }
}

function failed(err: unknown, ctx: CliContext): number {
  const e = err as DuetError;
  const why = e instanceof DuetError ? (e.details?.path?.[0] ?? e.message) : (e as Error).message;
  ctx.err(ctx.style.red(`duet: ${why}`));
  return 1;
}
