import { createWriteStream, linkSync, mkdirSync, renameSync, unlinkSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { numberedName, safeFileName, type FileSurface, type OutgoingFile } from "@duet/shared";
import type { Style } from "./render.ts";

/**
 * Workspace files reaching the terminal: an answer's attachments are saved in
 * ATTACHMENTS_DIR under the folder the person ran `duet` in, each named on its
 * own line. A file already there is never replaced: the new one gets a number.
 */

/** Where an answer's attachments are saved, relative to the folder `duet` was run in. */
export const ATTACHMENTS_DIR = "duet-files";

/** The folder `duet` was run in: npm runs scripts at the repository root and says where it was called from in INIT_CWD. */
export function callerDir(env: Record<string, string | undefined>): string {
  return env.INIT_CWD || process.cwd();
}

/**
 * Streams `body` into `dir` and names it `name`, or with `overwrite` false the
 * first of `name-1`, `name-2`… nobody has. Written beside and then linked into
 * place, so a download cut off leaves no half file under the name, and a name
 * taken meanwhile is never replaced (the link fails and the next number is tried).
 * Resolves to the path saved.
 */
export async function saveStream(body: ReadableStream<Uint8Array>, dir: string, name: string, overwrite: boolean): Promise<string> {
  const partial = join(dir, `.${name}.duet-partial-${process.pid}`);
  try {
    await pipeline(Readable.fromWeb(body as never), createWriteStream(partial));
    if (overwrite) {
      renameSync(partial, join(dir, name));
      return join(dir, name);
    }
    for (let n = 0; n < 10_000; n++) {
      const out = join(dir, n === 0 ? name : numberedName(name, n));
      try {
        linkSync(partial, out);
        return out;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
    }
    throw new Error(`every name like ${name} is taken in ${dir}`);
  } finally {
    try {
      unlinkSync(partial);
    } catch {
      // Never created, or renamed into place.
    }
  }
}

/** The terminal's file surface: each file saved under `<caller's folder>/duet-files/`, a line naming where. */
/** What saving files needs of the CLI: where it was run, how it prints. */
export type SavingContext = { cwd?: string; style: Style; out(text: string): void; err(text: string): void };

export function terminalFiles(ctx: SavingContext): FileSurface {
  return {
    platform: "the terminal",
    // The Worker's own limit is the only one: a disk takes what the Worker gives.
    maxBytes: Number.MAX_SAFE_INTEGER,
    async send(files: OutgoingFile[], comment?: string, after?: Promise<boolean>) {
      // An answer's files are saved once the answer is printed, and not at all when it was not.
      if (after && !(await after)) return false;
      const base = ctx.cwd ?? process.cwd();
      const dir = resolve(base, ATTACHMENTS_DIR);
      try {
        mkdirSync(dir, { recursive: true });
        if (comment) ctx.out(comment);
        for (const file of files) {
          const saved = await saveStream(await file.open(), dir, safeFileName(file.name), false);
          ctx.out(`Attached ${file.path} → saved as ${relative(base, saved) || saved} (${file.bytes} bytes)`);
        }
        return true;
      } catch (err) {
        ctx.err(ctx.style.red(`duet: could not save an attachment in ${dir}: ${(err as Error).message}`));
        return false;
      }
    },
  };
}
