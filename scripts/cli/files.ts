import { createReadStream, statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { Readable } from "node:stream";
import { DuetError, safeFileName, UPLOADS_DIR } from "@duet/shared";
import type { CliContext } from "./commands.ts";
import { saveStream } from "./saved-files.ts";

/**
 * `duet get ROOM PATH [OUT]` and `duet put ROOM FILE [PATH]`: a workspace file
 * streamed to or from disk, never held whole in memory. Resolve to the exit code.
 */

export async function getFile(cmd: { room: string; path: string; out?: string }, ctx: CliContext): Promise<number> {
  // OUT named is written as asked (replacing a file there, as `cp` does); without it, a name taken gets a number.
  const out = resolve(ctx.cwd ?? process.cwd(), cmd.out ?? safeFileName(basename(cmd.path)));
  try {
    const file = await ctx.client.getFile(cmd.room, cmd.path);
    const saved = await saveStream(file.body, dirname(out), basename(out), cmd.out !== undefined);
    ctx.out(`${cmd.path} → ${saved} (${file.bytes} bytes, ${file.type})`);
    return 0;
  } catch (err) {
    return failed(err, ctx);
  }
}

export async function putFile(cmd: { room: string; file: string; path?: string }, ctx: CliContext): Promise<number> {
  let bytes: number;
  const local = resolve(ctx.cwd ?? process.cwd(), cmd.file);
  try {
    const st = statSync(local);
    if (!st.isFile()) throw new Error(`${cmd.file} is not a file`);
    bytes = st.size;
  } catch (err) {
    ctx.err(ctx.style.red(`duet: cannot read ${cmd.file}: ${(err as Error).message.replace(/^ENOENT: /, "")}`));
    return 1;
  }
  const path = cmd.path ?? `${UPLOADS_DIR}/${safeFileName(basename(cmd.file))}`;
  try {
    const body = Readable.toWeb(createReadStream(local)) as ReadableStream<Uint8Array>;
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
