import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Every file under `dir` (a Worker's state: SQLite databases, their write-ahead logs, all wrangler keeps), with its bytes. */
export function filesUnder(dir: string): { path: string; bytes: Buffer }[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const path = join(e.parentPath, e.name);
      return { path, bytes: readFileSync(path) };
    });
}

/** The files under `dir` that hold `secret`'s bytes. */
export function filesHolding(dir: string, secret: string): string[] {
  return filesUnder(dir)
    .filter((f) => f.bytes.includes(Buffer.from(secret)))
    .map((f) => f.path);
}
